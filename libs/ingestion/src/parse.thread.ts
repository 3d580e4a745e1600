import { isMainThread, parentPort, workerData } from 'worker_threads';
import { parseDocx, parsePdf } from './binary.parsers';
import { ParsedDocument } from './document';
import { checkPdfInflation, checkZipInflation } from './inflation-budget';

/** What a parse thread is started with (its `workerData`). */
export interface ParseThreadInput {
  kind: 'pdf' | 'docx';
  data: Uint8Array;
  meta: { fileSize: number; extension: string | null };
  /** The decompressed bytes the document may expand to (LARDER_PARSE_MAX_INFLATED_MB). */
  maxInflatedBytes: number;
}

/** What it answers, once, before it ends. */
export type ParseThreadOutput = { doc: ParsedDocument } | { error: { name: string; code: string | null; message: string } };

/**
 * The body of one parse thread: the document's decompressed size is measured against the budget
 * first, then the parser runs. The thread ends after answering, so all it held goes with it.
 */
async function parseInThisThread(input: ParseThreadInput): Promise<ParsedDocument> {
  const data = Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength);
  if (input.kind === 'docx') {
    await checkZipInflation(data, input.maxInflatedBytes, 'DOCX document');
    return parseDocx(data, input.meta);
  }
  await checkPdfInflation(data, input.maxInflatedBytes);
  return parsePdf(data, input.meta);
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  parseInThisThread(workerData as ParseThreadInput).then(
    (doc) => port.postMessage({ doc } satisfies ParseThreadOutput),
    (err: Error & { code?: unknown }) => port.postMessage({ error: { name: err.name, code: typeof err.code === 'string' ? err.code : null, message: err.message } } satisfies ParseThreadOutput),
  );
}
