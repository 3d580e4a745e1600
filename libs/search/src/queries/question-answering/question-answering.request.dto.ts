import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { Check, OptionalBoolean, Problems } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';
import {
  QueryField,
  queryText,
  SearchOptions,
  SearchOptionsField,
  SearchOptionsRequestDto,
} from '../../search-options.request.dto';

export interface QuestionAnsweringParams extends CommonParams {
  query: string;
  options: SearchOptions;
  instructions: string | null;
  cite: boolean;
  multimodal: boolean;
  stream: boolean;
}

/** `qa_options`. */
export class QaOptionsRequestDto {
  @OptionalBoolean()
  cite?: boolean | null;

  @OptionalBoolean()
  multimodal?: boolean | null;
}

/** `StoreQuestionAnsweringParams`. The question is required here (the SDK types it optional; there is nothing else to answer). */
export class QuestionAnsweringRequestDto extends StoreQueryRequestDto {
  @QueryField(true)
  query!: unknown;

  @SearchOptionsField()
  search_options?: SearchOptionsRequestDto | null;

  @OptionalBoolean()
  stream?: boolean | null;

  @Check(
    'length',
    'string_type',
    'Input should be a string of 1 to 8000 characters',
    (v) => v === undefined || v === null || (typeof v === 'string' && v.length >= 1 && v.length <= 8000),
  )
  instructions?: string | null;

  @IsOptional()
  @Check('notList', 'model_type', 'Input should be an object', (v) => !Array.isArray(v))
  @ValidateNested({ message: 'Input should be an object' })
  @Type(() => QaOptionsRequestDto)
  qa_options?: QaOptionsRequestDto | null;

  params(): QuestionAnsweringParams {
    const p = new Problems();
    const common = this.common(p);
    const query = queryText(p, this.query);
    p.throwIfAny();
    return {
      ...common,
      query: query!,
      options: SearchOptionsRequestDto.toOptions(this.search_options),
      instructions: this.instructions ?? null,
      cite: this.qa_options?.cite ?? true,
      multimodal: this.qa_options?.multimodal ?? true,
      stream: this.stream ?? false,
    };
  }
}
