import type { PartUrl } from './part-urls';

/** `MultipartUpload`: an upload in progress with its presigned part URLs. */
export interface UploadObject {
  id: string;
  filename: string;
  file_size: number;
  mime_type: string;
  part_count: number;
  created_at: string;
}
export interface UploadDetail extends UploadObject {
  completed_parts: Array<{ part_number: number; etag: string }>;
  part_urls: PartUrl[];
}
export interface UploadCreatedResponse {
  id: string;
  part_urls: PartUrl[];
}

export function toUploadObject(u: {
  id: string;
  filename: string;
  fileSize: string | number;
  mimeType: string;
  partCount: number;
  createdAt: Date;
}): UploadObject {
  return {
    id: u.id,
    filename: u.filename,
    file_size: Number(u.fileSize),
    mime_type: u.mimeType,
    part_count: u.partCount,
    created_at: u.createdAt.toISOString(),
  };
}
