import { applyDecorators } from '@nestjs/common';
import { Allow } from 'class-validator';
import { Check, QueryBoolean } from '@larder/kernel';

/** A listing of one kind of activity, as its handler reads it. */
export interface ActivityListing {
  kind: string;
  limit: number;
  /** Only events created before / after these times. */
  filterBefore: Date | null;
  filterAfter: Date | null;
  includeTotal: boolean;
  /** Page cursors. */
  after?: string;
  before?: string;
}

/** `event_type`: required, one of `kinds`. */
export const EventTypeOf = (kinds: readonly string[]) =>
  applyDecorators(
    Check('required', 'missing', 'Field required', (v) => v !== undefined),
    Check(
      'kind',
      'enum',
      `Input should be ${kinds.map((k) => `'${k}'`).join(', ')}`,
      (v) => v === undefined || (typeof v === 'string' && kinds.includes(v)),
    ),
  );

const Datetime = () =>
  Check(
    'datetime',
    'datetime_parsing',
    'Input should be a valid datetime',
    (v) => v === undefined || v === '' || (typeof v === 'string' && !Number.isNaN(new Date(v).getTime())),
  );
const date = (v: string | undefined) => (v === undefined || v === '' ? null : new Date(v));

/** The query of an activity listing: one event type, newest first, cursor pages. */
export abstract class ListActivityRequestDto {
  abstract event_type: string;

  @Check('intFrom', 'value_error', 'Input should be an integer from 1 to 100', (v) => {
    const n = Number(v);
    return v === undefined || (Number.isInteger(n) && n >= 1 && n <= 100);
  })
  limit?: string;

  @Datetime()
  filter_before?: string;

  @Datetime()
  filter_after?: string;

  @QueryBoolean()
  include_total?: boolean;

  @Allow()
  after?: string;

  @Allow()
  before?: string;

  listing(): ActivityListing {
    return {
      kind: this.event_type,
      limit: this.limit === undefined ? 20 : Number(this.limit),
      filterBefore: date(this.filter_before),
      filterAfter: date(this.filter_after),
      includeTotal: this.include_total === true,
      after: this.after,
      before: this.before,
    };
  }
}
