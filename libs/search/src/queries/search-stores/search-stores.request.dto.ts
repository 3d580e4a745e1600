import { OptionalBoolean, Problems } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';
import { QueryField, queryText, SearchOptions, SearchOptionsField, SearchOptionsRequestDto } from '../../search-options.request.dto';

export interface SearchStoresParams extends CommonParams {
  query: string;
  options: SearchOptions;
  /** Answer as server-sent events. */
  stream: boolean;
  /**
   * The query was rewritten by the configured model before this search (OpenAI's `rewrite_query`):
   * what was asked, the model and its tokens, recorded on the search's event and metered.
   */
  rewrite?: { from: string; model: string; usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } };
}

/** `StoreSearchParams`: the body of `POST /v1/stores/search`. */
export class SearchStoresRequestDto extends StoreQueryRequestDto {
  @QueryField(true)
  query!: unknown;

  @SearchOptionsField()
  search_options?: SearchOptionsRequestDto | null;

  @OptionalBoolean()
  stream?: boolean | null;

  params(): SearchStoresParams {
    const p = new Problems();
    const common = this.common(p);
    const query = queryText(p, this.query);
    p.throwIfAny();
    return { ...common, query: query!, options: SearchOptionsRequestDto.toOptions(this.search_options), stream: this.stream ?? false };
  }
}
