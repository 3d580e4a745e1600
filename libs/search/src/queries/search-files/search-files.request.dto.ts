import { Check, OptionalBoolean, Problems } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';
import {
  QueryField,
  queryText,
  SearchOptions,
  SearchOptionsField,
  SearchOptionsRequestDto,
} from '../../search-options.request.dto';

export const MAX_CHUNKS_PER_FILE = 100;
/** Upstream publishes no default; three chunks show why a file ranks where it does without repeating it. */
export const DEFAULT_CHUNKS_PER_FILE = 3;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const absent = (v: unknown) => v === undefined || v === null;

export interface FileSearchOptions extends SearchOptions {
  /** Whether each file carries its best chunks (otherwise `chunks` is null). */
  returnChunks: boolean;
  chunksPerFile: number;
}

export interface SearchFilesParams extends CommonParams {
  query: string;
  options: FileSearchOptions;
}

/** `search_options` of a file search: the search's options plus `return_chunks` and `chunks_per_file`. */
export class FileSearchOptionsRequestDto extends SearchOptionsRequestDto {
  @OptionalBoolean()
  return_chunks?: boolean | null;

  @Check('isInt', 'int_type', 'Input should be a valid integer', (v) => absent(v) || isInt(v))
  @Check('min', 'greater_than_equal', 'Input should be greater than or equal to 0', (v) => !isInt(v) || v >= 0)
  @Check(
    'max',
    'less_than_equal',
    `Input should be less than or equal to ${MAX_CHUNKS_PER_FILE}`,
    (v) => !isInt(v) || v <= MAX_CHUNKS_PER_FILE,
  )
  chunks_per_file?: number | null;

  static toFileOptions(o: FileSearchOptionsRequestDto | null | undefined): FileSearchOptions {
    return {
      ...SearchOptionsRequestDto.toOptions(o),
      returnChunks: o?.return_chunks ?? true,
      chunksPerFile: o?.chunks_per_file ?? DEFAULT_CHUNKS_PER_FILE,
    };
  }
}

/**
 * `FileSearchParams` of `POST /v1/stores/files/search` (the `stores.files.search` method of
 * @mixedbread/sdk up to 0.61.0, `src/resources/stores/files.ts`; the Python SDK's
 * `types/stores/file_search_params.py` has the same fields): the fields of a search, with
 * `search_options.return_chunks` and `search_options.chunks_per_file`.
 */
export class SearchFilesRequestDto extends StoreQueryRequestDto {
  @QueryField(true)
  query!: unknown;

  @SearchOptionsField(FileSearchOptionsRequestDto)
  search_options?: FileSearchOptionsRequestDto | null;

  params(): SearchFilesParams {
    const p = new Problems();
    const common = this.common(p);
    const query = queryText(p, this.query);
    p.throwIfAny();
    return { ...common, query: query!, options: FileSearchOptionsRequestDto.toFileOptions(this.search_options) };
  }
}
