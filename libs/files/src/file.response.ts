/** `FileObject` (§5.1): every field always present. */
export interface FileObjectResponse {
  id: string;
  filename: string;
  bytes: number;
  mime_type: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export function toFileObject(row: { id: string; filename: string; bytes: string | number; mimeType: string; version: number; createdAt: Date; updatedAt: Date }): FileObjectResponse {
  return {
    id: row.id,
    filename: row.filename,
    bytes: Number(row.bytes),
    mime_type: row.mimeType,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
