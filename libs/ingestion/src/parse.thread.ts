import { isMainThread, parentPort } from 'worker_threads';
import { parseDocx, parsePdf } from './binary.parsers';
import { ParsedDocument } from './document';
import { checkPdfInflation, checkZipInflation } from './inflation-budget';

/** One document to parse, as a parse thread is sent it. */
export interface ParseThreadInput {
  kind: 'pdf' | 'docx';
  data: Uint8Array;
  meta: { fileSize: number; extension: string | null };
  /** The decompressed bytes the document may expand to (LARDER_PARSE_MAX_INFLATED_MB). */
  maxInflatedBytes: number;
}

/** What it answers for that document. */
export type ParseThreadOutput =
  { doc: ParsedDocument } | { error: { name: string; code: string | null; message: string } };

/** One document in this thread: its decompressed size is measured against the budget first, then the parser runs. */
async function parseInThisThread(input: ParseThreadInput): Promise<ParsedDocument> {
  const data = Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength);
  if (input.kind === 'docx') {
    await checkZipInflation(data, input.maxInflatedBytes, 'DOCX document');
    return parseDocx(data, input.meta);
  }
  await checkPdfInflation(data, input.maxInflatedBytes);
  return parsePdf(data, input.meta);
}

// a parse thread takes one document at a time (its host waits for the answer before sending another)
if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on(
    'message',
    (input: ParseThreadInput) =>
      void parseInThisThread(input).then(
        (doc) => port.postMessage({ doc } satisfies ParseThreadOutput),
        (err: Error & { code?: unknown }) =>
          port.postMessage({
            error: { name: err.name, code: typeof err.code === 'string' ? err.code : null, message: err.message },
          } satisfies ParseThreadOutput),
      ),
  );
}
