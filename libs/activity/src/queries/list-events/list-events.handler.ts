import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage } from '@larder/kernel';
import { ActivityReader } from '@larder/projections/activity/activity.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { pageOfActivity, storeIdOf } from '../../activity-page';
import { ActivityEventResponse } from '../../activity.response';
import { ListEventsQuery } from './list-events.query';

@QueryHandler(ListEventsQuery)
export class ListEventsHandler implements IQueryHandler<ListEventsQuery, CursorPage<ActivityEventResponse>> {
  constructor(
    private readonly activity: ActivityReader,
    private readonly stores: StoresReader,
  ) {}

  async execute(q: ListEventsQuery): Promise<CursorPage<ActivityEventResponse>> {
    const storeId = q.storeIdentifier
      ? await storeIdOf(this.stores, q.principal.organizationId, q.storeIdentifier)
      : null;
    return pageOfActivity(this.activity, q.principal.organizationId, storeId, q.listing);
  }
}
