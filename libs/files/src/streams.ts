import { streamName } from '@larder/kernel';
export const fileStream = (id: string) => streamName('file', id);
export const fileUploadStream = (id: string) => streamName('file_upload', id);
