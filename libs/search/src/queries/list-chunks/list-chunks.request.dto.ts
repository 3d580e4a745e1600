import { Check, Problems } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';
import { SearchOptions, SearchOptionsField, SearchOptionsRequestDto } from '../../search-options.request.dto';

export interface ChunkSort {
  target: 'file' | 'chunk';
  path: string[];
  ascending: boolean;
}

export interface ListChunksParams extends CommonParams {
  options: SearchOptions;
  sort: ChunkSort | null;
}

const pairOf = (v: unknown): [unknown, unknown] | null => {
  const pair = Array.isArray(v) ? v : [v, true];
  return pair.length === 2 && typeof pair[0] === 'string' && pair[0] && typeof pair[1] === 'boolean' ? (pair as [unknown, unknown]) : null;
};

/** `sort_by` as a path into file metadata (or `generated_metadata.…`, the chunk's). */
function sortOf(v: unknown): ChunkSort | null {
  const pair = pairOf(v);
  if (!pair) return null;
  let path = (pair[0] as string).split('.');
  let target: 'file' | 'chunk' = 'file';
  if (path[0] === 'generated_metadata') [target, path] = ['chunk', path.slice(1)];
  else if (path[0] === 'metadata') path = path.slice(1);
  return { target, path, ascending: pair[1] as boolean };
}

/** `StoreListChunksParams`: chunks in order, or sorted numerically by a metadata path. */
export class ListChunksRequestDto extends StoreQueryRequestDto {
  @SearchOptionsField()
  search_options?: SearchOptionsRequestDto | null;

  @Check('sortPair', 'value_error', 'Input should be a metadata path or a [path, ascending] pair', (v) => v === undefined || v === null || pairOf(v) !== null)
  @Check('sortPath', 'value_error', 'The path names no field', (v) => {
    const s = pairOf(v) ? sortOf(v) : null;
    return !s || (s.path.length > 0 && s.path.every((x) => !!x));
  })
  sort_by?: unknown;

  params(): ListChunksParams {
    const p = new Problems();
    const common = this.common(p);
    p.throwIfAny();
    return { ...common, options: SearchOptionsRequestDto.toOptions(this.search_options), sort: this.sort_by === undefined || this.sort_by === null ? null : sortOf(this.sort_by) };
  }
}
