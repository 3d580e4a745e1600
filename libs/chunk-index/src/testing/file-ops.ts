import type { ChunkIndexOp } from '../chunk-index.port';

/** `n` one-line text chunks (`chunk <i>`), as the specs' files hold them. */
export function lineChunks(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    chunkIndex: i,
    type: 'text' as const,
    text: `chunk ${i}`,
    offset: 0,
    mimeType: 'text/plain',
    generatedMetadata: null,
  }));
}

/** The writes that add a new file (generation 1) of one-line chunks, one per vector of `model`. */
export function newFileOps(storeId: string, fileId: string, model: string, vectors: Float32Array[]): ChunkIndexOp[] {
  return [
    {
      op: 'putFile',
      file: {
        storeId,
        fileId,
        organizationId: storeId,
        filename: `${fileId}.txt`,
        externalId: null,
        metadata: null,
        generation: 1,
      },
    },
    { op: 'setChunks', storeId, fileId, generation: 1, chunks: lineChunks(vectors.length) },
    { op: 'setVectors', storeId, fileId, generation: 1, model, vectors },
  ];
}
