import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '@larder/kernel';
import { ActivityReader } from '@larder/projections/activity/activity.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { storeIdOf } from '../../activity-page';
import { PLATFORM_EVENT } from '../../activity.response';
import { GetStoreEventsHistogramQuery } from './get-store-events-histogram.query';

export interface StoreHistogramResponse {
  object: 'store.histogram';
  data: Array<{ bucket_start: string; bucket_end: string; event_count: number; type: string }>;
}

/** Event counts of a store per bucket and platform event name; every bucket is listed, 0 where nothing happened. */
@QueryHandler(GetStoreEventsHistogramQuery)
export class GetStoreEventsHistogramHandler implements IQueryHandler<
  GetStoreEventsHistogramQuery,
  StoreHistogramResponse
> {
  constructor(
    private readonly activity: ActivityReader,
    private readonly stores: StoresReader,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(q: GetStoreEventsHistogramQuery): Promise<StoreHistogramResponse> {
    const { start, end, seconds, buckets, kinds } = q.params.window(this.clock.now());
    const storeId = await storeIdOf(this.stores, q.principal.organizationId, q.storeIdentifier);
    const counts = await this.activity.histogram({
      organizationId: q.principal.organizationId,
      kinds,
      storeId,
      before: null,
      after: null,
      start,
      end,
      seconds,
    });
    const types = [...new Set(kinds.map((k) => PLATFORM_EVENT[k]))];
    const n = new Map<string, number>();
    for (const c of counts)
      n.set(`${c.bucket}:${PLATFORM_EVENT[c.kind]}`, (n.get(`${c.bucket}:${PLATFORM_EVENT[c.kind]}`) ?? 0) + c.n);
    const data: StoreHistogramResponse['data'] = [];
    for (let i = 0; i < buckets; i++) {
      const bucketStart = new Date(start.getTime() + i * seconds * 1000);
      const bucketEnd = new Date(Math.min(end.getTime(), bucketStart.getTime() + seconds * 1000));
      for (const type of types)
        data.push({
          bucket_start: bucketStart.toISOString(),
          bucket_end: bucketEnd.toISOString(),
          event_count: n.get(`${i}:${type}`) ?? 0,
          type,
        });
    }
    return { object: 'store.histogram', data };
  }
}
