import { Check, ValidationFailedError } from '@larder/kernel';
import { HISTOGRAM_DEFAULT_KINDS, STORE_KINDS } from '../../activity.response';

/** What a histogram counts: `buckets` buckets of `seconds` from `start` to `end`. */
export interface HistogramWindow {
  start: Date;
  end: Date;
  seconds: number;
  buckets: number;
  kinds: string[];
}

const MAX_BUCKETS = 10_000;
const absent = (v: unknown) => v === undefined || v === null;
const Datetime = () =>
  Check(
    'datetime',
    'datetime_parsing',
    'Input should be a valid datetime',
    (v) => absent(v) || (typeof v === 'string' && !Number.isNaN(new Date(v).getTime())),
  );

/** `StoreEventsHistogramParams`: event counts per bucket (default: 2-hour buckets over the last 7 days, the four ingestion and search kinds). */
export class GetStoreEventsHistogramRequestDto {
  @Datetime()
  start_time?: string | null;

  @Datetime()
  end_time?: string | null;

  @Check(
    'positiveInt',
    'value_error',
    'Input should be a positive integer',
    (v) => absent(v) || (typeof v === 'number' && Number.isInteger(v) && v >= 1),
  )
  bucket_seconds?: number | null;

  @Check(
    'kinds',
    'enum',
    `Input should be a list of ${STORE_KINDS.join(', ')}`,
    (v) => absent(v) || (Array.isArray(v) && v.every((k) => STORE_KINDS.includes(k as string))),
  )
  event_types?: string[] | null;

  /** The buckets, ending `now` unless `end_time` says otherwise; 422 when the window is empty or has too many buckets. */
  window(now: Date): HistogramWindow {
    const seconds = this.bucket_seconds ?? 7200;
    const end = this.end_time ? new Date(this.end_time) : now;
    const start = this.start_time ? new Date(this.start_time) : new Date(end.getTime() - 7 * 86_400_000);
    if (end.getTime() <= start.getTime())
      throw new ValidationFailedError([
        { loc: ['body', 'end_time'], msg: 'end_time must be after start_time', type: 'value_error' },
      ]);
    const buckets = Math.ceil((end.getTime() - start.getTime()) / (seconds * 1000));
    if (buckets > MAX_BUCKETS)
      throw new ValidationFailedError([
        {
          loc: ['body', 'bucket_seconds'],
          msg: `That makes ${buckets} buckets; at most ${MAX_BUCKETS}`,
          type: 'value_error',
          input: seconds,
        },
      ]);
    return {
      start,
      end,
      seconds,
      buckets,
      kinds: this.event_types ? [...new Set(this.event_types)] : HISTOGRAM_DEFAULT_KINDS,
    };
  }
}
