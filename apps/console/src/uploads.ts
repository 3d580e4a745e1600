import { Api, putPart, seg } from './api';
import type { FileObject, StoreFile } from './types';

/**
 * Files above this size go through the multipart upload API (`/v1/files/uploads`): parts PUT to presigned
 * URLs, several at once, then `complete`; smaller ones are one multipart/form-data request.
 */
export const MULTIPART_THRESHOLD = 8 * 1024 * 1024;
export const PART_SIZE = 8 * 1024 * 1024;
const PARALLEL_PARTS = 3;

export interface UploadProgress {
  sent: number;
  total: number;
  phase: 'uploading' | 'attaching';
}

/** Uploads `file` into the store and returns the store file (its ingestion then runs on the server). */
export async function uploadToStore(
  api: Api,
  storeId: string,
  file: File,
  onProgress: (p: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<StoreFile> {
  const total = file.size;
  if (total <= MULTIPART_THRESHOLD) {
    const form = new FormData();
    form.append('file', file, file.name);
    onProgress({ sent: 0, total, phase: 'uploading' });
    return api.upload<StoreFile>(
      `/v1/stores/${seg(storeId)}/files/upload`,
      form,
      (sent) => onProgress({ sent: Math.min(sent, total), total, phase: 'uploading' }),
      signal,
    );
  }

  const partCount = Math.ceil(total / PART_SIZE);
  const upload = await api.post<{ id: string; part_urls: Array<{ part_number: number; url: string }> }>(
    '/v1/files/uploads',
    {
      filename: file.name,
      file_size: total,
      mime_type: file.type || 'application/octet-stream',
      part_count: partCount,
    },
  );
  const sentPerPart = new Array<number>(partCount + 1).fill(0);
  const report = () => onProgress({ sent: sentPerPart.reduce((a, b) => a + b, 0), total, phase: 'uploading' });
  let created: FileObject;
  try {
    const parts: Array<{ part_number: number; etag: string }> = [];
    const queue = [...upload.part_urls];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const n = next.part_number;
        const blob = file.slice((n - 1) * PART_SIZE, Math.min(n * PART_SIZE, total));
        const etag = await putPart(
          next.url,
          blob,
          (sent) => {
            sentPerPart[n] = sent;
            report();
          },
          signal,
        );
        sentPerPart[n] = blob.size;
        report();
        parts.push({ part_number: n, etag });
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_PARTS, partCount) }, worker));
    parts.sort((a, b) => a.part_number - b.part_number);
    created = await api.post<FileObject>(`/v1/files/uploads/${seg(upload.id)}/complete`, { parts });
  } catch (err) {
    await api.post(`/v1/files/uploads/${seg(upload.id)}/abort`).catch(() => undefined);
    throw err;
  }
  onProgress({ sent: total, total, phase: 'attaching' });
  return api.post<StoreFile>(`/v1/stores/${seg(storeId)}/files`, { file_id: created.id });
}
