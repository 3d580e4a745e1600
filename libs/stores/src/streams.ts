import { streamName, uuidFrom } from '@larder/kernel';
export const storeStream = (id: string) => streamName('store', id);
export const storeNameStream = (organizationId: string, name: string) =>
  streamName('store_name', uuidFrom(`store-name:${organizationId}:${name}`));
/** One stream per (store, file): the store file's id in the API is the file id. */
export const storeFileStreamId = (storeId: string, fileId: string) => uuidFrom(`store-file:${storeId}:${fileId}`);
export const storeFileStream = (storeId: string, fileId: string) =>
  streamName('store_file', storeFileStreamId(storeId, fileId));
export const storeExternalIdStream = (storeId: string, externalId: string) =>
  streamName('store_external_id', uuidFrom(`store-external-id:${storeId}:${externalId}`));
export const storeFileBatchStream = (batchId: string) => streamName('store_file_batch', batchId);
