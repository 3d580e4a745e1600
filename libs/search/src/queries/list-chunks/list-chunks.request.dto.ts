import { Check, Problems } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';
import { ChunkSort, metadataSort, namesField, sortPair } from '../../chunk-sort';
import { SearchOptions, SearchOptionsField, SearchOptionsRequestDto } from '../../search-options.request.dto';

export interface ListChunksParams extends CommonParams {
  options: SearchOptions;
  sort: ChunkSort | null;
}

/** `sort_by` as a path into file metadata (or `generated_metadata.…`, the chunk's). */
function sortOf(v: unknown): ChunkSort | null {
  const pair = sortPair(v);
  return pair ? metadataSort(pair[0], pair[1]) : null;
}

/** `StoreListChunksParams`: chunks in order, or sorted numerically by a metadata path. */
export class ListChunksRequestDto extends StoreQueryRequestDto {
  @SearchOptionsField()
  search_options?: SearchOptionsRequestDto | null;

  @Check(
    'sortPair',
    'value_error',
    'Input should be a metadata path or a [path, ascending] pair',
    (v) => v === undefined || v === null || sortPair(v) !== null,
  )
  @Check('sortPath', 'value_error', 'The path names no field', (v) => {
    const s = sortOf(v);
    return !s || namesField(s);
  })
  sort_by?: unknown;

  params(): ListChunksParams {
    const p = new Problems();
    const common = this.common(p);
    p.throwIfAny();
    return {
      ...common,
      options: SearchOptionsRequestDto.toOptions(this.search_options),
      sort: this.sort_by === undefined || this.sort_by === null ? null : sortOf(this.sort_by),
    };
  }
}
