import type { ChunkIndexOp } from '../chunk-index.port';

/** Chunks of `texts` (one each, of `mimeType`), as the specs' files hold them. */
function textChunks(texts: string[], mimeType: string) {
  return texts.map((text, i) => ({
    chunkIndex: i,
    type: 'text' as const,
    text,
    offset: 0,
    mimeType,
    generatedMetadata: null,
  }));
}

/** `n` one-line text chunks (`chunk <i>`). */
export const lineChunks = (n: number) =>
  textChunks(
    Array.from({ length: n }, (_, i) => `chunk ${i}`),
    'text/plain',
  );

/** The write that puts a file of no external id and no metadata (generation 1 unless given). */
export function putFileOp(
  storeId: string,
  fileId: string,
  file: { organizationId: string; filename: string; generation?: number },
): ChunkIndexOp {
  return {
    op: 'putFile',
    file: { storeId, fileId, externalId: null, metadata: null, generation: 1, ...file },
  };
}

/** The writes that add a new Markdown file (generation 1, organization `org`), a chunk per text. */
export function markdownFileOps(storeId: string, fileId: string, texts: string[]): ChunkIndexOp[] {
  return [
    putFileOp(storeId, fileId, { organizationId: 'org', filename: `${fileId}.md` }),
    { op: 'setChunks', storeId, fileId, generation: 1, chunks: textChunks(texts, 'text/markdown') },
  ];
}

/** The writes that add a new file (generation 1) of one-line chunks, one per vector of `model`. */
export function newFileOps(storeId: string, fileId: string, model: string, vectors: Float32Array[]): ChunkIndexOp[] {
  return [
    putFileOp(storeId, fileId, { organizationId: storeId, filename: `${fileId}.txt` }),
    { op: 'setChunks', storeId, fileId, generation: 1, chunks: lineChunks(vectors.length) },
    { op: 'setVectors', storeId, fileId, generation: 1, model, vectors },
  ];
}
