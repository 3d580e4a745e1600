import type { Principal } from '@larder/kernel';
import type { MetadataFacetsParams } from './metadata-facets.request.dto';

export class MetadataFacetsQuery {
  constructor(
    readonly principal: Principal,
    readonly params: MetadataFacetsParams,
  ) {}
}
