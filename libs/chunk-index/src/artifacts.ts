import { createHash } from 'crypto';
import { Readable } from 'stream';
import type { BlobStorage } from '@larder/blob-storage';

/**
 * Content-addressed ingestion artifacts in blob storage. They are immutable: the same key always
 * holds the same bytes, so writing one twice is harmless and events can reference them by key.
 *  - chunks:  artifacts/chunks/<sha256(file sha256, strategy, parser version)>.json
 *  - vectors: artifacts/vectors/<sha256(model, every chunk's embedding input)>.f32
 */
export interface ChunkArtifactEntry {
  chunkIndex: number;
  text: string;
  /** Format 1: what was embedded. Format 2 computes it at embedding time from `context` and the store's contextualization. */
  embedText?: string;
  /** Format 2: the document's title and the headings above the chunk (for contextualized embedding). */
  context?: { title: string | null; headings: string[] };
  offset: number;
  tokens: number;
  /** `image/*` for the `image_url` chunks of an image (their text is the OCR text), else `text/plain`. */
  mimeType: string;
  generatedMetadata: Record<string, unknown>;
}
export interface ChunksArtifact {
  format: 1 | 2;
  chunks: ChunkArtifactEntry[];
}

const sha = (...parts: string[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
};

/**
 * Artifacts are kept per organization: reuse (the same content ingested again, a store copy) happens
 * only inside one organization, so no tenant can learn from timing or events that another holds a file.
 */
export const chunksArtifactKey = (
  organizationId: string,
  fileSha256: string,
  strategy: string,
  parserVersion: number,
) => `artifacts/${organizationId}/chunks/${sha(fileSha256, strategy, String(parserVersion))}.json`;
export const vectorsArtifactKey = (organizationId: string, model: string, embedTexts: string[]) =>
  `artifacts/${organizationId}/vectors/${sha(model, ...embedTexts)}.f32`;

async function readAll(blobs: BlobStorage, key: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of await blobs.get(key)) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

export async function writeChunksArtifact(blobs: BlobStorage, key: string, artifact: ChunksArtifact): Promise<void> {
  if ((await blobs.size(key)) !== null) return;
  await blobs.put(key, Readable.from([Buffer.from(JSON.stringify(artifact))]), { contentType: 'application/json' });
}

export async function readChunksArtifact(blobs: BlobStorage, key: string): Promise<ChunksArtifact> {
  return JSON.parse((await readAll(blobs, key)).toString('utf8')) as ChunksArtifact;
}

/** Vectors: a JSON header line `{model, dimensions, count}` then count × dimensions little-endian float32. */
export async function writeVectorsArtifact(
  blobs: BlobStorage,
  key: string,
  model: string,
  vectors: Float32Array[],
): Promise<void> {
  if ((await blobs.size(key)) !== null) return;
  const dimensions = vectors[0]?.length ?? 0;
  const header = Buffer.from(JSON.stringify({ model, dimensions, count: vectors.length }) + '\n');
  const body = Buffer.alloc(vectors.length * dimensions * 4);
  vectors.forEach((v, i) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(body, i * dimensions * 4));
  await blobs.put(key, Readable.from([header, body]), { contentType: 'application/octet-stream' });
}

export async function readVectorsArtifact(
  blobs: BlobStorage,
  key: string,
): Promise<{ model: string; dimensions: number; vectors: Float32Array[] }> {
  const buf = await readAll(blobs, key);
  const nl = buf.indexOf(10);
  const { model, dimensions, count } = JSON.parse(buf.subarray(0, nl).toString('utf8')) as {
    model: string;
    dimensions: number;
    count: number;
  };
  const vectors: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const start = nl + 1 + i * dimensions * 4;
    vectors.push(
      new Float32Array(
        buf
          .subarray(start, start + dimensions * 4)
          .buffer.slice(buf.byteOffset + start, buf.byteOffset + start + dimensions * 4),
      ),
    );
  }
  return { model, dimensions, vectors };
}

export async function artifactExists(blobs: BlobStorage, key: string): Promise<boolean> {
  return (await blobs.size(key)) !== null;
}
