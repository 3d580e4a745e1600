import { Controller, Get, Inject, Res } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Public, positionToString } from '@larder/kernel';
import { EVENT_STORE, EventStore, QUARANTINE_STREAM, readQuarantine } from '@larder/event-store';
import { ProjectionRunner, StuckInfo } from '@larder/projections/runner';
import { errorBody } from './http-exception.filter';

/** Each check of `GET /health/ready` answers within this bound. */
const CHECK_TIMEOUT_MS = 2000;
/** Lag is counted up to this many events per projection (`lag_capped` beyond). */
const MAX_LAG = 1000;

type Check = { status: 'ok' | 'fail'; error?: string; [key: string]: unknown };

/**
 * Probes for orchestrators, public (no API key). `live`: the process answers. `ready`: the database
 * answers a real round trip, the event store its head, no projection or reactor is stuck, and the
 * loops run (here, or in a separate worker when LARDER_RUN_WORKER=false); 503 otherwise, with every
 * check in the body. `quarantine` counts the records the event store refused (see `appendIsolating`).
 */
@Controller('health')
export class HealthHttpController {
  /** Probes arriving while one runs share it: a database that hangs does not pile up checks. */
  private inflight: Promise<{ ready: boolean; body: Record<string, unknown> }> | null = null;

  constructor(
    private readonly runner: ProjectionRunner,
    private readonly ds: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get('live')
  @Public()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  async ready(@Res({ passthrough: true }) res: { status(code: number): unknown }): Promise<Record<string, unknown>> {
    this.inflight ??= this.check().finally(() => (this.inflight = null));
    const { ready, body } = await this.inflight;
    if (!ready) res.status(503);
    return body;
  }

  private async check(): Promise<{ ready: boolean; body: Record<string, unknown> }> {
    const [database, eventStore, projections, quarantine] = await Promise.all([
      bounded('database', async () => {
        const t0 = Date.now();
        await this.ds.query('SELECT 1');
        return { latency_ms: Date.now() - t0 };
      }),
      bounded('event store', async () => ({ head: positionToString(await this.store.headPosition()) })),
      bounded('projections', async () => {
        const rows = await this.runner.status({ maxLag: MAX_LAG });
        const stuck = rows.filter((r) => r.stuck).map((r) => `${r.name} is stuck: ${describeStuck(r.stuck!)}`);
        return {
          ...(stuck.length ? { status: 'fail' as const, error: stuck.join('; ') } : {}),
          items: rows.map((r) => ({
            name: r.name,
            kind: r.kind,
            position: r.position,
            lag: r.lag,
            lag_capped: r.lagCapped,
            running: r.running,
            stuck: r.stuck && snakeStuck(r.stuck),
          })),
        };
      }),
      // records the event store refused: kept aside, they do not make the service unready (this probe is
      // public, so it names no organization and shows no record's content)
      bounded('quarantine', async () => {
        const q = await readQuarantine(this.store, 5);
        return {
          stream: QUARANTINE_STREAM,
          count: q.count,
          newest: q.newest.map((r) => ({ record_type: r.recordType, reason: r.reason, at: r.at })),
        };
      }),
    ]);
    const checks: Record<string, Check> = {
      database,
      event_store: eventStore,
      projections,
      loops: this.loops(),
      quarantine,
    };
    const failing = Object.entries(checks).filter(([, c]) => c.status === 'fail');
    if (!failing.length) return { ready: true, body: { status: 'ok', checks } };
    const message = `Not ready: ${failing.map(([name, c]) => `${name} (${c.error})`).join('; ')}`;
    return { ready: false, body: { status: 'unavailable', checks, ...errorBody(503, message, 'service_unavailable') } };
  }

  /** Worker liveness: the loops of this process run; where they run elsewhere, lag and stuck come from their checkpoints. */
  private loops(): Check {
    if (!this.runner.runsLoops) {
      return {
        status: 'ok',
        mode: 'elsewhere',
        note: 'LARDER_RUN_WORKER=false: a separate worker runs the projections and reactors; lag and stuck are read from its checkpoints',
      };
    }
    const loops = this.runner.loopStates();
    const dead = loops.filter((l) => !l.running).map((l) => l.name);
    const base = { mode: 'in_process', running: loops.length - dead.length, total: loops.length };
    if (!loops.length) return { status: 'fail', error: 'the projection loops were not started', ...base };
    if (dead.length) return { status: 'fail', error: `loops not running: ${dead.join(', ')}`, ...base };
    return { status: 'ok', ...base };
  }
}

/** Runs a check with a deadline; a throw or no answer in time is a failed check. */
async function bounded(
  name: string,
  run: () => Promise<Record<string, unknown> & { status?: 'ok' | 'fail' }>,
): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () => reject(new Error(`no answer from the ${name} within ${CHECK_TIMEOUT_MS} ms`)),
        CHECK_TIMEOUT_MS,
      )),
  );
  try {
    return { status: 'ok', ...(await Promise.race([run(), timeout])) };
  } catch (err) {
    return { status: 'fail', error: (err as Error)?.message ?? String(err) };
  } finally {
    clearTimeout(timer);
  }
}

function describeStuck(s: StuckInfo): string {
  return `${s.eventId ? `event ${s.eventId} (${s.type} in ${s.stream})` : 'reading the log'}, ${s.attempts} attempts since ${s.since.toISOString()}: ${s.error}`;
}

function snakeStuck(s: StuckInfo) {
  return {
    event_id: s.eventId,
    type: s.type,
    stream: s.stream,
    position: s.position,
    error: s.error,
    attempts: s.attempts,
    since: s.since.toISOString(),
  };
}
