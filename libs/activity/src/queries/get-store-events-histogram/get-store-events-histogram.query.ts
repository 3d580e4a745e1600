import type { Principal } from '@larder/kernel';
import type { GetStoreEventsHistogramRequestDto } from './get-store-events-histogram.request.dto';

export class GetStoreEventsHistogramQuery {
  constructor(
    readonly principal: Principal,
    readonly storeIdentifier: string,
    /** The window is fixed against the handler's clock. */
    readonly params: Pick<GetStoreEventsHistogramRequestDto, 'window'>,
  ) {}
}
