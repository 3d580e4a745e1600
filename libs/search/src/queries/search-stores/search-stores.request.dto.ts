import { Check, OptionalBoolean, Problems } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';
import {
  QueryField,
  queryText,
  queryVector,
  SearchOptions,
  SearchOptionsField,
  SearchOptionsRequestDto,
} from '../../search-options.request.dto';
import { ResultSort, resultSort } from '../../result-page';
import { WEB_STORE } from '../../web/web-search.port';

export interface SearchStoresParams extends CommonParams {
  /** The query's text (empty for an embedding query). */
  query: string;
  /** An embedding query (`query` as a list of numbers): searched by the dense index alone. */
  vector?: number[];
  /**
   * A paged search (`offset` or `sort_by` sent): results are ranked to `RANKING_WINDOW`, ordered by
   * `sort`, and the page `[offset, offset + top_k)` is answered with a `pagination` object.
   */
  offset?: number;
  sort?: ResultSort;
  options: SearchOptions;
  /** Answer as server-sent events. */
  stream: boolean;
  /**
   * The query was rewritten by the configured model before this search (OpenAI's `rewrite_query`):
   * what was asked, the model and its tokens, recorded on the search's event and metered.
   */
  rewrite?: {
    from: string;
    model: string;
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
}

const absent = (v: unknown) => v === undefined || v === null;

/**
 * `StoreSearchParams`: the body of `POST /v1/stores/search`, plus Larder's optional `offset` and
 * `sort_by`, and an embedding as the `query` (docs/api.md, Search).
 */
export class SearchStoresRequestDto extends StoreQueryRequestDto {
  @QueryField(true, true)
  query!: unknown;

  @SearchOptionsField()
  search_options?: SearchOptionsRequestDto | null;

  @OptionalBoolean()
  stream?: boolean | null;

  @Check(
    'isInt',
    'int_type',
    'Input should be a valid integer',
    (v) => absent(v) || (typeof v === 'number' && Number.isInteger(v)),
  )
  @Check(
    'min',
    'greater_than_equal',
    'Input should be greater than or equal to 0',
    (v) => typeof v !== 'number' || v >= 0,
  )
  offset?: number | null;

  @Check(
    'resultSort',
    'value_error',
    "Input should be 'score', 'created_at' or a metadata path, or a [field, ascending] pair",
    (v) => absent(v) || resultSort(v) !== null,
  )
  sort_by?: unknown;

  params(): SearchStoresParams {
    const p = new Problems();
    const common = this.common(p);
    const vector = queryVector(this.query);
    const query = vector ? '' : queryText(p, this.query);
    const options = SearchOptionsRequestDto.toOptions(this.search_options);
    if (vector && options.agentic)
      p.add(
        ['body', 'search_options', 'agentic'],
        'An agentic search needs a text query, not an embedding',
        'value_error',
        true,
      );
    if (vector && common.storeIdentifiers.includes(WEB_STORE)) {
      p.add(
        ['body', 'store_identifiers'],
        `${WEB_STORE} is searched by text: an embedding query searches stores only`,
        'value_error',
        WEB_STORE,
      );
    }
    p.throwIfAny();
    return {
      ...common,
      query: query!,
      ...(vector ? { vector } : {}),
      ...(absent(this.offset) && absent(this.sort_by)
        ? {}
        : { offset: this.offset ?? 0, sort: resultSort(this.sort_by ?? 'score')! }),
      options,
      stream: this.stream ?? false,
    };
  }
}
