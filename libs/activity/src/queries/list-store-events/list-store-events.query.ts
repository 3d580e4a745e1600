import type { Principal } from '@larder/kernel';
import type { ActivityListing } from '../../list-activity.request.dto';

export class ListStoreEventsQuery {
  constructor(
    readonly principal: Principal,
    readonly storeIdentifier: string,
    readonly listing: ActivityListing,
  ) {}
}
