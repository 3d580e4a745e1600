import type { Principal } from '@larder/kernel';
import type { ActivityListing } from '../../list-activity.request.dto';

export class ListEventsQuery {
  constructor(
    readonly principal: Principal,
    /** null: every store, and organization-level events. */
    readonly storeIdentifier: string | null,
    readonly listing: ActivityListing,
  ) {}
}
