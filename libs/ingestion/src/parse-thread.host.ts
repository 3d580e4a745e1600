import type { Worker } from 'worker_threads';
import { moduleWorker } from '@larder/kernel/worker-module';
import { ParsedDocument, ParseError } from './document';
import type { ParseThreadInput, ParseThreadOutput } from './parse.thread';

/** The memory one parse of a compressed document (PDF, DOCX) may take. */
export interface ParseLimits {
  /** The decompressed bytes the document may expand to (LARDER_PARSE_MAX_INFLATED_MB). */
  maxInflatedBytes: number;
  /** The parse thread's JavaScript heap (LARDER_PARSE_MAX_HEAP_MB); past it the thread is ended. */
  maxHeapMb: number;
}

/**
 * A document.xml of 30 MiB (far beyond real documents) parses within a 256 MiB heap; a DOCX built to
 * stay just under both limits raises the server's RSS by about 460 MiB while its thread runs.
 */
export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxInflatedBytes: 128 * 1024 * 1024, maxHeapMb: 256 };

const KINDS: Record<ParseThreadInput['kind'], string> = { pdf: 'PDF', docx: 'DOCX document' };

/** How long a parse thread that answered waits for the next document before it ends (its heap goes with it). */
const IDLE_MS = 5000;
/** Threads kept waiting at most; more are ended as they finish. */
const MAX_IDLE = 2;

interface ParseThread {
  worker: Worker;
  heapMb: number;
  idleTimer: NodeJS.Timeout | null;
}
const idle: ParseThread[] = [];

/** A waiting thread with this heap limit, or a new one (its modules load while the document is sent). */
function takeThread(heapMb: number): ParseThread {
  const i = idle.findIndex((t) => t.heapMb === heapMb);
  if (i >= 0) {
    const [t] = idle.splice(i, 1);
    if (t.idleTimer) clearTimeout(t.idleTimer);
    t.idleTimer = null;
    t.worker.ref();
    return t;
  }
  const worker = moduleWorker(require.resolve('./parse.thread'), {
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, heapMb / 8)) },
  });
  const t: ParseThread = { worker, heapMb, idleTimer: null };
  // a thread that ends while waiting leaves the pool
  worker.on('exit', () => {
    const at = idle.indexOf(t);
    if (at >= 0) idle.splice(at, 1);
  });
  return t;
}

/** After a document parsed: the thread waits a while for the next one, not keeping the process alive. */
function giveBack(t: ParseThread): void {
  if (idle.length >= MAX_IDLE) return void t.worker.terminate();
  t.worker.unref();
  t.idleTimer = setTimeout(() => void t.worker.terminate(), IDLE_MS);
  t.idleTimer.unref();
  idle.push(t);
}

/**
 * Parses a PDF or DOCX in a parse thread: a document over the decompressed-size budget fails before
 * its parser runs, and a parser that outgrows the heap limit ends its thread (never the server). A
 * thread whose parse failed in any way is ended, so whatever that parse held goes back with it; one
 * that answered waits IDLE_MS for the next document (its modules stay loaded), then ends. An aborted
 * `signal` (the ingestion attempt's deadline) ends the thread too.
 */
export function parseInThread(
  kind: ParseThreadInput['kind'],
  data: Buffer,
  meta: ParseThreadInput['meta'],
  limits: ParseLimits,
  signal?: AbortSignal,
): Promise<ParsedDocument> {
  signal?.throwIfAborted();
  const thread = takeThread(limits.maxHeapMb);
  const { worker } = thread;
  return new Promise<ParsedDocument>((resolve, reject) => {
    let settled = false;
    const settle = (ok: boolean, fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      fn();
      if (ok) giveBack(thread);
      else void worker.terminate();
    };
    const onAbort = () => settle(false, () => reject(signal!.reason as Error));
    const onMessage = (m: ParseThreadOutput) => {
      if ('doc' in m) return settle(true, () => resolve(m.doc));
      // the parsers' own failures are ParseErrors; anything else is named as it was thrown
      settle(false, () =>
        reject(
          m.error.code === 'parse_error'
            ? new ParseError(m.error.message)
            : Object.assign(new Error(m.error.message), { name: m.error.name }),
        ),
      );
    };
    const onError = (err: Error & { code?: string }) =>
      settle(false, () =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new ParseError(
                `Reading the ${KINDS[kind]} needs more than the ${limits.maxHeapMb} MiB of memory a parse may use (LARDER_PARSE_MAX_HEAP_MB); it was not parsed`,
              )
            : err,
        ),
      );
    const onExit = (code: number) =>
      settle(false, () => reject(new Error(`the parse thread ended (exit code ${code}) before it answered`)));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ kind, data, meta, maxInflatedBytes: limits.maxInflatedBytes } satisfies ParseThreadInput);
  });
}
