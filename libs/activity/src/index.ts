import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { ActivityReader } from '@larder/projections/activity/activity.reader';
import { ListStoreEventsHandler } from './queries/list-store-events/list-store-events.handler';
import { ListStoreEventsHttpController } from './queries/list-store-events/list-store-events.http.controller';
import { ListEventsHandler } from './queries/list-events/list-events.handler';
import { ListEventsHttpController } from './queries/list-events/list-events.http.controller';
import { GetStoreEventsHistogramHandler } from './queries/get-store-events-histogram/get-store-events-histogram.handler';
import { GetStoreEventsHistogramHttpController } from './queries/get-store-events-histogram/get-store-events-histogram.http.controller';

export { ActivityStreamReactor } from './activity-stream.reactor';

/** Activity listings and histograms from the projected activity streams (`/v1/events`, a store's events and histogram). */
@Module({
  imports: [CqrsModule],
  controllers: [ListStoreEventsHttpController, ListEventsHttpController, GetStoreEventsHistogramHttpController],
  providers: [ActivityReader, StoresReader, ListStoreEventsHandler, ListEventsHandler, GetStoreEventsHistogramHandler],
})
export class ActivityModule {}
