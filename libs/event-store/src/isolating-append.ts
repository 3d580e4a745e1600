import {
  NewEvent,
  PayloadTooLargeError,
  RecordedEvent,
  WrongExpectedRevisionError,
  streamName,
  uuidFrom,
} from '@larder/kernel';
import { EventStore } from './event-store.port';

/** Where records that no append accepts are kept, one `RecordQuarantined` event each. */
export const QUARANTINE_STREAM = streamName('quarantine', 'records');

/** A quarantined record keeps at most this many characters of its serialized data and metadata. */
export const QUARANTINE_PAYLOAD_CHARS = 64 * 1024;

export interface RecordQuarantined {
  type: 'RecordQuarantined';
  data: {
    /** The stream the record was meant for, its type and id. */
    stream: string;
    recordType: string;
    recordId: string | null;
    organizationId: string;
    /** Why the event store refused it. */
    reason: string;
    /** `JSON.stringify({ data, metadata })` of the record, cut at QUARANTINE_PAYLOAD_CHARS. */
    payload: string;
    payloadChars: number;
    at: string;
  };
}

export interface QuarantineLog {
  error(message: string): void;
}

/**
 * Whether an append failed because of the records themselves (a value the store cannot hold, such as
 * a lone UTF-16 surrogate or an oversized event), not because of the store (a connection, a timeout):
 * PostgreSQL data exceptions (class 22) and program limits (class 54), and errors raised before the
 * store is reached.
 */
export function isRecordError(err: unknown): boolean {
  if (err instanceof PayloadTooLargeError || err instanceof TypeError || err instanceof RangeError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|54)[0-9A-Z]{3}$/.test(code);
}

/** Replaces unpaired UTF-16 surrogates, which JSON stores refuse, by U+FFFD. */
export const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/**
 * Appends records (activity, request records) so that one bad record never takes the others with it:
 * the batch is appended at once; when that fails, each record alone, and a record the store refuses
 * for what it holds (`isRecordError`) is quarantined: kept in QUARANTINE_STREAM with the reason, and
 * logged. Any other failure is thrown, with the records not yet appended, so the caller can retry
 * them; the store accepts an append of known ids as a no-op, so records with ids may be retried as a
 * whole. Answers how many records were appended and quarantined.
 */
export async function appendIsolating(
  store: EventStore,
  stream: string,
  events: NewEvent[],
  log: QuarantineLog,
  now: () => Date = () => new Date(),
): Promise<{ appended: number; quarantined: number }> {
  try {
    await store.appendToStream(stream, events, { expectedRevision: 'any' });
    return { appended: events.length, quarantined: 0 };
  } catch (err) {
    // a batch overlapping records already there (a re-run cut differently) is appended record by record too
    if (!isRecordError(err) && !(err instanceof WrongExpectedRevisionError && events.length > 1)) throw err;
  }
  let appended = 0;
  let quarantined = 0;
  for (const e of events) {
    try {
      await store.appendToStream(stream, [e], { expectedRevision: 'any' });
      appended++;
    } catch (err) {
      if (!isRecordError(err)) throw err;
      await quarantine(store, stream, e, err as Error, log, now);
      quarantined++;
    }
  }
  return { appended, quarantined };
}

async function quarantine(
  store: EventStore,
  stream: string,
  e: NewEvent,
  err: Error,
  log: QuarantineLog,
  now: () => Date,
): Promise<void> {
  const detail = (err as { detail?: unknown } | null)?.detail;
  const reason = wellFormed(`${String(err?.message ?? err)}${typeof detail === 'string' ? ` (${detail})` : ''}`).slice(
    0,
    2000,
  );
  let serialized: string;
  try {
    serialized = JSON.stringify({ data: e.data, metadata: e.metadata ?? null });
  } catch (stringifyErr) {
    serialized = `(not serializable: ${(stringifyErr as Error).message})`;
  }
  const payload = wellFormed(serialized.slice(0, QUARANTINE_PAYLOAD_CHARS));
  const organizationId = e.metadata?.orgId ?? '';
  const record: RecordQuarantined = {
    type: 'RecordQuarantined',
    data: {
      stream,
      recordType: e.type,
      recordId: e.id ?? null,
      organizationId,
      reason,
      payload,
      payloadChars: serialized.length,
      at: now().toISOString(),
    },
  };
  const what = `${e.type}${e.id ? ` ${e.id}` : ''} for ${stream}`;
  try {
    // a record with an id is quarantined once, however often its append is retried
    const id = e.id ? uuidFrom(`quarantine:${e.id}`) : undefined;
    await store.appendToStream(
      QUARANTINE_STREAM,
      [{ id, type: record.type, data: record.data, metadata: { orgId: organizationId, actor: 'system' } }],
      { expectedRevision: 'any' },
    );
    log.error(`quarantined ${what} (kept in ${QUARANTINE_STREAM}): ${reason}`);
  } catch (qErr) {
    // the log is then the only copy
    log.error(`could not record ${what} (${reason}) nor quarantine it (${(qErr as Error).message}): ${payload}`);
  }
}

/** The quarantine's size and its newest entries (newest first). */
export async function readQuarantine(
  store: EventStore,
  newest = 10,
): Promise<{ count: number; newest: RecordQuarantined['data'][] }> {
  const events: RecordedEvent[] = await store.readStream(QUARANTINE_STREAM, {
    direction: 'backwards',
    maxCount: newest,
  });
  return {
    count: events.length ? events[0].revision + 1 : 0,
    newest: events.map((e) => e.data as unknown as RecordQuarantined['data']),
  };
}
