import { NewEvent } from '@larder/kernel';
import { EventStore, ExpectedRevision, StreamAppend, StreamAppendOutcome } from './event-store.port';

/** An append ready for a statement: its expected revision named and every event with its id. */
export interface PreparedAppend {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: Array<NewEvent & { id: string }>;
}

/** At most this many appends go in one statement (a caller's appends given together are never split). */
const MAX_GROUP = 128;

/** The appends one caller gave together, answered together. */
interface Unit {
  appends: readonly PreparedAppend[];
  done: (outcomes: StreamAppendOutcome[]) => void;
}

/**
 * Group commit: appends run as at most `statements` statements at once; those that come while they
 * run wait, and go together as the next statement. The appends a caller gives together go in one
 * statement, in its order. A statement that fails stores nothing (one transaction), so its appends are
 * then tried one at a time, in order: one append's bad record or lost race never fails another's.
 * Each append is answered with its own outcome, never an error of the group.
 */
export class AppendGroups {
  private readonly waiting: Unit[] = [];
  private running = 0;

  constructor(
    private readonly statements: number,
    private readonly runGroup: (group: readonly PreparedAppend[]) => Promise<StreamAppendOutcome[]>,
    private readonly runAlone: (append: PreparedAppend) => Promise<StreamAppendOutcome>,
  ) {
    if (!(statements >= 1)) throw new Error(`appends need at least one statement at a time, not ${statements}`);
  }

  append(appends: readonly PreparedAppend[]): Promise<StreamAppendOutcome[]> {
    if (!appends.length) return Promise.resolve([]);
    return new Promise((done) => {
      this.waiting.push({ appends, done });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.statements && this.waiting.length) {
      let n = 0;
      let take = 0;
      while (take < this.waiting.length && (take === 0 || n + this.waiting[take].appends.length <= MAX_GROUP))
        n += this.waiting[take++].appends.length;
      const units = this.waiting.splice(0, take);
      this.running++;
      void this.run(units).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async run(units: Unit[]): Promise<void> {
    const group = units.flatMap((u) => u.appends);
    let outcomes: StreamAppendOutcome[] | null = null;
    if (group.length > 1) outcomes = await this.runGroup(group).catch(() => null);
    if (!outcomes) {
      outcomes = [];
      for (const a of group) outcomes.push(await this.runAlone(a).catch((err: unknown) => failed(err)));
    }
    let at = 0;
    for (const u of units) {
      u.done(outcomes.slice(at, at + u.appends.length));
      at += u.appends.length;
    }
  }
}

function failed(err: unknown): StreamAppendOutcome {
  return { ok: false, error: err instanceof Error ? err : new Error(String(err)) };
}

/** `appendToStreams` of a store without multi-stream statements: each append alone, in order, each answered with its outcome. */
export async function appendOneByOne(
  store: Pick<EventStore, 'appendToStream'>,
  appends: readonly StreamAppend[],
): Promise<StreamAppendOutcome[]> {
  const outcomes: StreamAppendOutcome[] = [];
  for (const a of appends) {
    try {
      outcomes.push({
        ok: true,
        result: await store.appendToStream(a.stream, a.events, { expectedRevision: a.expectedRevision }),
      });
    } catch (err) {
      outcomes.push(failed(err));
    }
  }
  return outcomes;
}
