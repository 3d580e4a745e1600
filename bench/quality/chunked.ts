import { ChunkIndexOp } from '@larder/chunk-index';
import { chunkDocument, parseFile } from '@larder/ingestion';
import { Doc } from './metrics';

export type DocChunks = ReturnType<typeof chunkDocument>;

/** A quality set's document parsed and chunked as the API's ingestion does (parseFile, chunkDocument `fast`). */
export async function chunkDoc(d: Doc): Promise<DocChunks> {
  const mimeType = d.filename.endsWith('.md') ? 'text/markdown' : 'text/plain';
  return chunkDocument(await parseFile(Buffer.from(d.body), d.filename, mimeType), 'fast', d.filename);
}

/** A document's file and chunks as the chunk index's ops (putFile, setChunks; generation 1). */
export function docOps(
  file: { storeId: string; organizationId: string; fileId: string; filename: string },
  chunks: DocChunks,
): ChunkIndexOp[] {
  const { storeId, fileId } = file;
  return [
    { op: 'putFile', file: { ...file, externalId: null, metadata: null, generation: 1 } },
    {
      op: 'setChunks',
      storeId,
      fileId,
      generation: 1,
      chunks: chunks.map((c) => ({
        chunkIndex: c.chunkIndex,
        type: 'text' as const,
        text: c.text,
        offset: c.offset,
        mimeType: 'text/plain',
        generatedMetadata: c.generatedMetadata,
      })),
    },
  ];
}
