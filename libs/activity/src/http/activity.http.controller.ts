import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, CursorPage, NotFoundError, paginateByCursor, Principal, Problems, RequireScope } from '@larder/kernel';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { ActivityQuery, ActivityReader, ActivityRow } from '@larder/projections/activity/activity.reader';
import { ACTIVITY_KINDS } from '../events';

const STORE_KINDS = ['ingestion', 'search', 'agentic_search', 'grep'];

/** Platform event names of the histogram buckets (§11.2). */
export const PLATFORM_EVENT: Record<string, string> = {
  ingestion: 'store.file.completed',
  search: 'store.search',
  agentic_search: 'store.search',
  grep: 'store.grep',
  qa: 'store.question_answer',
  completion: 'model_request',
};

function toEvent(r: ActivityRow) {
  return { id: r.id, created_at: r.createdAt.toISOString(), ...r.event };
}

function parseListQuery(q: Record<string, unknown>, kinds: readonly string[]) {
  const problems = new Problems();
  const type = q.event_type;
  if (type === undefined) problems.push({ loc: ['query', 'event_type'], msg: 'Field required', type: 'missing' });
  else if (typeof type !== 'string' || !kinds.includes(type)) problems.push({ loc: ['query', 'event_type'], msg: `Input should be ${kinds.map((k) => `'${k}'`).join(', ')}`, type: 'enum', input: type });
  let limit = 20;
  if (q.limit !== undefined) {
    const n = Number(q.limit);
    if (!Number.isInteger(n) || n < 1 || n > 100) problems.push({ loc: ['query', 'limit'], msg: 'Input should be an integer from 1 to 100', type: 'value_error', input: q.limit });
    else limit = n;
  }
  const date = (k: string) => {
    const v = q[k];
    if (v === undefined || v === '') return null;
    const d = new Date(String(v));
    if (Number.isNaN(d.getTime())) problems.push({ loc: ['query', k], msg: 'Input should be a valid datetime', type: 'datetime_parsing', input: v });
    return d;
  };
  const before = date('filter_before');
  const after = date('filter_after');
  const includeTotal = q.include_total === 'true' || q.include_total === true;
  problems.throwIfAny();
  return { kind: type as string, limit, before, after, includeTotal, after_: q.after as string | undefined, before_: q.before as string | undefined };
}

/** Activity listings and histograms (contract §11), read from the projected activity streams. */
@Controller()
export class ActivityHttpController {
  constructor(
    private readonly activity: ActivityReader,
    private readonly stores: StoresReader,
  ) {}

  private async store(p: Principal, identifier: string): Promise<string> {
    const s = await this.stores.resolve(p.organizationId, identifier);
    if (!s) throw new NotFoundError(`Store ${identifier} not found`);
    return s.id;
  }

  private list(q: ActivityQuery, l: ReturnType<typeof parseListQuery>): Promise<CursorPage<ReturnType<typeof toEvent>>> {
    return paginateByCursor<ActivityRow>(
      { limit: l.limit, after: l.after_, before: l.before_, include_total: l.includeTotal },
      (r) => ({ t: r.createdAt.toISOString(), id: r.id }),
      ({ cursor, direction, take }) => this.activity.page(q, cursor as { t: string; id: string } | null, direction, take),
      () => this.activity.count(q),
    ).then((page) => ({ ...page, data: page.data.map(toEvent) }));
  }

  @Get('v1/stores/:store_identifier/events')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async storeEvents(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Query() query: Record<string, unknown>) {
    const l = parseListQuery(query, STORE_KINDS);
    const storeId = await this.store(p, sid);
    return this.list({ organizationId: p.organizationId, kinds: [l.kind], storeId, before: l.before, after: l.after }, l);
  }

  /** Organization-wide (contract gap, README): the same events; `store_identifier` narrows to one store. */
  @Get('v1/events')
  @RequireScope({ method: 'read', resourceType: 'store' })
  async orgEvents(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    const l = parseListQuery(query, ACTIVITY_KINDS);
    const sid = query.store_identifier;
    const storeId = typeof sid === 'string' && sid ? await this.store(p, sid) : null;
    return this.list({ organizationId: p.organizationId, kinds: [l.kind], storeId, before: l.before, after: l.after }, l);
  }

  @Post('v1/stores/:store_identifier/events/histogram')
  @HttpCode(200)
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async histogram(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Body() body: unknown) {
    const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    const problems = new Problems();
    const date = (k: string, def: Date) => {
      const v = b[k];
      if (v === undefined || v === null) return def;
      const d = new Date(String(v));
      if (typeof v !== 'string' || Number.isNaN(d.getTime())) problems.push({ loc: ['body', k], msg: 'Input should be a valid datetime', type: 'datetime_parsing', input: v });
      return d;
    };
    let seconds = 7200;
    if (b.bucket_seconds !== undefined && b.bucket_seconds !== null) {
      if (typeof b.bucket_seconds !== 'number' || !Number.isInteger(b.bucket_seconds) || b.bucket_seconds < 1) problems.push({ loc: ['body', 'bucket_seconds'], msg: 'Input should be a positive integer', type: 'value_error', input: b.bucket_seconds });
      else seconds = b.bucket_seconds;
    }
    const end = date('end_time', new Date());
    const start = date('start_time', new Date(end.getTime() - 7 * 86_400_000));
    let kinds = STORE_KINDS;
    if (b.event_types !== undefined && b.event_types !== null) {
      if (!Array.isArray(b.event_types) || b.event_types.some((k) => !STORE_KINDS.includes(k as string))) problems.push({ loc: ['body', 'event_types'], msg: `Input should be a list of ${STORE_KINDS.join(', ')}`, type: 'enum', input: b.event_types });
      else kinds = [...new Set(b.event_types as string[])];
    }
    if (!problems.length && end.getTime() <= start.getTime()) problems.push({ loc: ['body', 'end_time'], msg: 'end_time must be after start_time', type: 'value_error' });
    const buckets = Math.ceil((end.getTime() - start.getTime()) / (seconds * 1000));
    if (!problems.length && buckets > 10_000) problems.push({ loc: ['body', 'bucket_seconds'], msg: `That makes ${buckets} buckets; at most 10000`, type: 'value_error', input: seconds });
    problems.throwIfAny();
    const storeId = await this.store(p, sid);
    const counts = await this.activity.histogram({ organizationId: p.organizationId, kinds, storeId, before: null, after: null, start, end, seconds });
    const types = [...new Set(kinds.map((k) => PLATFORM_EVENT[k]))];
    const n = new Map<string, number>();
    for (const c of counts) n.set(`${c.bucket}:${PLATFORM_EVENT[c.kind]}`, (n.get(`${c.bucket}:${PLATFORM_EVENT[c.kind]}`) ?? 0) + c.n);
    const data = [];
    for (let i = 0; i < buckets; i++) {
      const bucketStart = new Date(start.getTime() + i * seconds * 1000);
      const bucketEnd = new Date(Math.min(end.getTime(), bucketStart.getTime() + seconds * 1000));
      for (const type of types) data.push({ bucket_start: bucketStart.toISOString(), bucket_end: bucketEnd.toISOString(), event_count: n.get(`${i}:${type}`) ?? 0, type });
    }
    return { object: 'store.histogram' as const, data };
  }
}
