import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage } from '@larder/kernel';
import { ActivityReader } from '@larder/projections/activity/activity.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { pageOfActivity, storeIdOf } from '../../activity-page';
import { ActivityEventResponse } from '../../activity.response';
import { ListStoreEventsQuery } from './list-store-events.query';

@QueryHandler(ListStoreEventsQuery)
export class ListStoreEventsHandler implements IQueryHandler<ListStoreEventsQuery, CursorPage<ActivityEventResponse>> {
  constructor(
    private readonly activity: ActivityReader,
    private readonly stores: StoresReader,
  ) {}

  async execute(q: ListStoreEventsQuery): Promise<CursorPage<ActivityEventResponse>> {
    const storeId = await storeIdOf(this.stores, q.principal.organizationId, q.storeIdentifier);
    return pageOfActivity(this.activity, q.principal.organizationId, storeId, q.listing);
  }
}
