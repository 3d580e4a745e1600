import { DataSource } from 'typeorm';
import { Position, comparePositions, positionToString } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';
import { ExternalProjection } from './projection';
import { CheckpointRow, readCheckpoints } from './checkpoints';
import { StuckInfo, readStuck } from './stuck-loops';

export interface ProjectionStatus {
  name: string;
  kind: 'projection' | 'reactor';
  version: number;
  position: string;
  /** Events in the log after `position`, counted up to a bound (see `lagCapped`). */
  lag: number;
  /** Counting stopped at the bound: the lag is at least `lag`. */
  lagCapped: boolean;
  updatedAt: Date | null;
  /** Whether this process's loop is running; null when it runs in another process (or in none). */
  running: boolean | null;
  /** The event the loop cannot apply, and why; null when it is not stuck. */
  stuck: StuckInfo | null;
}

/** A loop of this process, as the runner knows it. */
export interface LoopView {
  name: string;
  running: boolean;
  stuck: StuckInfo | null;
  position: Position | undefined;
}

export interface StatusInput {
  ds: DataSource;
  store: EventStore;
  external: readonly ExternalProjection[];
  /** This process's loops; null when they run elsewhere (then the stuck-loops table tells). */
  loops: readonly LoopView[] | null;
  maxLag: number;
}

/**
 * Each projection's and reactor's checkpoint (or, for a loop of this process, its position if that is
 * further: checkpoints of batches with nothing relevant are written lazily), its lag behind the log's
 * head, whether it runs and whether it is stuck.
 */
export async function readStatus({ ds, store, external, loops, maxLag }: StatusInput): Promise<ProjectionStatus[]> {
  const rows: CheckpointRow[] = await readCheckpoints(ds);
  for (const x of external) {
    rows.push({
      name: x.name,
      kind: 'projection',
      version: x.version,
      position: await x.readCheckpoint(),
      updatedAt: null,
    });
  }
  const stored = loops ? null : await readStuck(ds);
  const lags = new Map<string, Promise<{ lag: number; capped: boolean }>>();
  const lagAfter = (at: Position) => {
    const key = positionToString(at);
    if (!lags.has(key)) lags.set(key, countAfter(store, at, maxLag));
    return lags.get(key)!;
  };
  const out: ProjectionStatus[] = [];
  for (const r of rows) {
    const loop = loops?.find((l) => l.name === r.name);
    const position = loop?.position && comparePositions(loop.position, r.position) > 0 ? loop.position : r.position;
    const { lag, capped } = await lagAfter(position);
    out.push({
      name: r.name,
      kind: r.kind,
      version: r.version,
      position: positionToString(position),
      lag,
      lagCapped: capped,
      updatedAt: r.updatedAt,
      running: loop ? loop.running : null,
      stuck: loops ? (loop?.stuck ?? null) : (stored!.get(r.name) ?? null),
    });
  }
  return out;
}

async function countAfter(store: EventStore, after: Position, max: number): Promise<{ lag: number; capped: boolean }> {
  let lag = 0;
  let at = after;
  while (lag < max) {
    const want = Math.min(5000, max - lag);
    const batch = await store.readAll({ after: at, maxCount: want });
    lag += batch.length;
    if (batch.length < want) return { lag, capped: false };
    at = batch[batch.length - 1].position;
  }
  return { lag, capped: true };
}
