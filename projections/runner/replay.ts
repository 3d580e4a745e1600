import { DataSource } from 'typeorm';
import { Position, RecordedEvent, START } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';
import { ExternalProjection, Projection } from './projection';
import { lockCheckpoint, writeCheckpoint } from './checkpoints';

export interface ReplayResult {
  events: number;
  position: Position;
}

/**
 * Drops a projection's rows and rebuilds them from the whole log. The rebuild runs in one
 * transaction with the checkpoint row locked, so readers keep seeing the old rows until the new
 * ones commit, and a running loop simply continues from the new checkpoint. Reactors are never replayed.
 */
export async function replayProjection(store: EventStore, ds: DataSource, p: Projection): Promise<ReplayResult> {
  // Read the log first: inside the transaction no other connection may be used (embedded Postgres
  // serves one transaction at a time).
  const events: RecordedEvent[] = [];
  let pos = START;
  for (;;) {
    const batch = await store.readAll({ after: pos, maxCount: 5000 });
    if (!batch.length) break;
    events.push(...batch.filter((e) => p.handles.includes(e.type)));
    pos = batch[batch.length - 1].position;
  }
  await ds.transaction(async (m) => {
    // locked: a live loop waits, then sees the moved checkpoint and continues from `pos`
    await lockCheckpoint(m, p.name, 'projection', p.version);
    await p.setup(m);
    await m.query(`TRUNCATE ${p.tables.join(', ')}`);
    for (const e of events) await p.apply(e, m);
    await writeCheckpoint(m, p.name, p.version, pos);
  });
  return { events: events.length, position: pos };
}

/**
 * Rebuilds an external projection: empties it, then re-applies the log in batches. Readers see the
 * index fill up again (it is not blue/green); a live loop continues from the moved checkpoint.
 */
export async function replayExternal(store: EventStore, x: ExternalProjection): Promise<ReplayResult> {
  await x.reset();
  let pos = START;
  let events = 0;
  for (;;) {
    const batch = await store.readAll({ after: pos, maxCount: 1000 });
    if (!batch.length) break;
    const handled = batch.filter((e) => x.handles.includes(e.type));
    pos = batch[batch.length - 1].position;
    await x.applyBatch(handled, pos);
    events += handled.length;
  }
  return { events, position: pos };
}
