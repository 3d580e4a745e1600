import { Module } from '@nestjs/common';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { ActivityReader } from '@larder/projections/activity/activity.reader';
import { ActivityHttpController } from './http/activity.http.controller';

export { ActivityStreamReactor } from './activity-stream.reactor';

/** Activity listings and histograms from the projected activity streams (contract §11). */
@Module({
  controllers: [ActivityHttpController],
  providers: [ActivityReader, StoresReader],
})
export class ActivityModule {}
