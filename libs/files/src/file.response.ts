/**
 * `FileObject`: every field always present. OpenAI's file object's fields are added beside
 * Mixedbread's (`object`, `purpose`, `status`; `bytes`, `id` and `filename` are shared); `created_at`
 * stays Mixedbread's ISO 8601 string where OpenAI has unix seconds.
 */
export interface FileObjectResponse {
  id: string;
  filename: string;
  bytes: number;
  mime_type: string;
  version: number;
  created_at: string;
  updated_at: string;
  object: 'file';
  /** What the upload said the file is for (OpenAI's `purpose`); null when it said nothing. */
  purpose: string | null;
  /** OpenAI's (deprecated) file status: a stored file is always `processed`. */
  status: 'processed';
}

export function toFileObject(row: {
  id: string;
  filename: string;
  bytes: string | number;
  mimeType: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  purpose: string | null;
}): FileObjectResponse {
  return {
    id: row.id,
    filename: row.filename,
    bytes: Number(row.bytes),
    mime_type: row.mimeType,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    object: 'file',
    purpose: row.purpose,
    status: 'processed',
  };
}
