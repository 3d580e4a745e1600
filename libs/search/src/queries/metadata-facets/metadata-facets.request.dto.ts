import { Check, Problems } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';
import { QueryField, queryText, SearchOptionsField, SearchOptionsRequestDto } from '../../search-options.request.dto';

export interface MetadataFacetsParams extends CommonParams {
  query: string | null;
  maxFields: number;
  maxValues: number;
  maxFiles: number;
  /** Only these metadata keys (null: every key). */
  only: string[] | null;
}

const IntFrom = (min: number, max: number) =>
  Check(
    'intRange',
    'value_error',
    `Input should be an integer from ${min} to ${max}`,
    (v) => v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max),
  );

/** `StoreMetadataFacetsParams`: value counts per metadata field of the matching files. */
export class MetadataFacetsRequestDto extends StoreQueryRequestDto {
  @QueryField(false)
  query?: unknown;

  @SearchOptionsField()
  search_options?: SearchOptionsRequestDto | null;

  @IntFrom(1, 256)
  max_fields?: number | null;

  @IntFrom(1, 256)
  max_values_per_field?: number | null;

  @IntFrom(1, 100_000)
  max_files?: number | null;

  @Check(
    'keys',
    'list_type',
    'Input should be a list of metadata keys',
    (v) => v === undefined || v === null || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
  )
  facets?: string[] | null;

  params(): MetadataFacetsParams {
    const p = new Problems();
    const common = this.common(p);
    const query = queryText(p, this.query);
    p.throwIfAny();
    return {
      ...common,
      query,
      maxFields: this.max_fields ?? 64,
      maxValues: this.max_values_per_field ?? 32,
      maxFiles: this.max_files ?? 10_000,
      only: this.facets ? this.facets.map((k) => k.replace(/^metadata\./, '')) : null,
    };
  }
}
