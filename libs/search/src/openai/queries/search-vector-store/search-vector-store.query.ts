import type { FilterNode, Principal } from '@larder/kernel';
import type { SearchVectorStoreRequestDto } from './search-vector-store.request.dto';

export class SearchVectorStoreQuery {
  constructor(
    readonly principal: Principal,
    readonly vectorStoreId: string,
    readonly input: SearchVectorStoreRequestDto,
    /** `input.filters`, translated. */
    readonly filter: FilterNode | null,
  ) {}
}
