import { join } from 'path';
import { Worker } from 'worker_threads';
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

/** The compiled thread module beside this one; run from the sources (tests), a .ts module through tools/ts-thread.js. */
function threadEntry(): { file: string; argv: string[] } {
  if (!__filename.endsWith('.ts')) return { file: join(__dirname, 'parse.thread.js'), argv: [] };
  return { file: join(__dirname, '../../../tools/ts-thread.js'), argv: [join(__dirname, 'parse.thread.ts')] };
}

const KINDS: Record<ParseThreadInput['kind'], string> = { pdf: 'PDF', docx: 'DOCX document' };

/**
 * Parses a PDF or DOCX in a thread of its own, started for this document and ended after it: a
 * document over the decompressed-size budget fails before its parser runs, a parser that outgrows
 * the heap limit ends its thread (never the server), and whatever the parse held goes back with the
 * thread. An aborted `signal` (the ingestion attempt's deadline) ends the thread too.
 */
export function parseInThread(kind: ParseThreadInput['kind'], data: Buffer, meta: ParseThreadInput['meta'], limits: ParseLimits, signal?: AbortSignal): Promise<ParsedDocument> {
  signal?.throwIfAborted();
  const entry = threadEntry();
  const input: ParseThreadInput = { kind, data, meta, maxInflatedBytes: limits.maxInflatedBytes };
  const worker = new Worker(entry.file, {
    argv: entry.argv,
    workerData: input,
    resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, limits.maxHeapMb / 8)) },
    stdout: false,
    stderr: false,
  });
  return new Promise<ParsedDocument>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const onAbort = () => settle(() => reject(signal!.reason as Error));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: ParseThreadOutput) =>
      settle(() => {
        if ('doc' in m) return resolve(m.doc);
        // the parsers' own failures are ParseErrors; anything else is named as it was thrown
        reject(m.error.code === 'parse_error' ? new ParseError(m.error.message) : Object.assign(new Error(m.error.message), { name: m.error.name }));
      }),
    );
    worker.on('error', (err: Error & { code?: string }) =>
      settle(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new ParseError(`Reading the ${KINDS[kind]} needs more than the ${limits.maxHeapMb} MiB of memory a parse may use (LARDER_PARSE_MAX_HEAP_MB); it was not parsed`)
            : err,
        ),
      ),
    );
    worker.on('exit', (code) => settle(() => reject(new Error(`the parse thread ended (exit code ${code}) before it answered`))));
  });
}
