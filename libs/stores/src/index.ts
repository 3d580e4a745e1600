import { Global, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { FILE_REFERENCES, STORE_FILE_VIEWS } from '@larder/kernel';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { FilesReader } from '@larder/projections/files/files.reader';
import { BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { StoresWriter } from './stores.writer';
import { StoreFilesWriter } from './store-files.writer';
import { StoreExternalIds } from './commands/add-store-file/store-external-ids';
import { StoreFileAttacher } from './commands/add-store-file/store-file-attacher';
import { ContentUrls } from './content-urls';
import { StoreFileAnswers } from './store-file-answers';
import { AttachAuthority } from './authority';
import { IngestionWorker } from './ingestion/ingestion.worker';
import { StoreExpirySweeper } from './ingestion/store-expiry.sweeper';
import { ExternalIdReconciler } from './ingestion/external-id.reconciler';
import { CreateStoreHandler } from './commands/create-store/create-store.handler';
import { CreateStoreHttpController } from './commands/create-store/create-store.http.controller';
import { UpdateStoreHandler } from './commands/update-store/update-store.handler';
import { UpdateStoreHttpController } from './commands/update-store/update-store.http.controller';
import { DeleteStoreHandler } from './commands/delete-store/delete-store.handler';
import { DeleteStoreHttpController } from './commands/delete-store/delete-store.http.controller';
import { CopyStoreHandler } from './commands/copy-store/copy-store.handler';
import { CopyStoreHttpController } from './commands/copy-store/copy-store.http.controller';
import { AddStoreFileHandler } from './commands/add-store-file/add-store-file.handler';
import { AddStoreFileHttpController } from './commands/add-store-file/add-store-file.http.controller';
import { UploadStoreFileHandler } from './commands/upload-store-file/upload-store-file.handler';
import { UploadStoreFileHttpController } from './commands/upload-store-file/upload-store-file.http.controller';
import { UpdateStoreFileHandler } from './commands/update-store-file/update-store-file.handler';
import { UpdateStoreFileHttpController } from './commands/update-store-file/update-store-file.http.controller';
import { DeleteStoreFileHandler } from './commands/delete-store-file/delete-store-file.handler';
import { DeleteStoreFileHttpController } from './commands/delete-store-file/delete-store-file.http.controller';
import { ReingestStoreHandler } from './commands/reingest-store/reingest-store.handler';
import { ReingestStoreHttpController } from './commands/reingest-store/reingest-store.http.controller';
import { GetStoreHandler } from './queries/get-store/get-store.handler';
import { GetStoreHttpController } from './queries/get-store/get-store.http.controller';
import { ListStoresHandler } from './queries/list-stores/list-stores.handler';
import { ListStoresHttpController } from './queries/list-stores/list-stores.http.controller';
import { GetStoreFileHandler } from './queries/get-store-file/get-store-file.handler';
import { GetStoreFileHttpController } from './queries/get-store-file/get-store-file.http.controller';
import { ListStoreFilesHandler } from './queries/list-store-files/list-store-files.handler';
import { ListStoreFilesHttpController } from './queries/list-store-files/list-store-files.http.controller';
import { DownloadStoreFileContentHandler } from './queries/download-store-file-content/download-store-file-content.handler';
import { DownloadStoreFileContentHttpController } from './queries/download-store-file-content/download-store-file-content.http.controller';
import { StoreFileBatchesReader } from '@larder/projections/stores/store-file-batches.reader';
import { StoreFileBatchesWriter } from './store-file-batches.writer';
import { CreateVectorStoreHandler } from './openai/commands/create-vector-store/create-vector-store.handler';
import { CreateVectorStoreHttpController } from './openai/commands/create-vector-store/create-vector-store.http.controller';
import { UpdateVectorStoreHandler } from './openai/commands/update-vector-store/update-vector-store.handler';
import { UpdateVectorStoreHttpController } from './openai/commands/update-vector-store/update-vector-store.http.controller';
import { DeleteVectorStoreHttpController } from './openai/commands/delete-vector-store/delete-vector-store.http.controller';
import { CreateVectorStoreFileHandler } from './openai/commands/create-vector-store-file/create-vector-store-file.handler';
import { CreateVectorStoreFileHttpController } from './openai/commands/create-vector-store-file/create-vector-store-file.http.controller';
import { UpdateVectorStoreFileHandler } from './openai/commands/update-vector-store-file/update-vector-store-file.handler';
import { UpdateVectorStoreFileHttpController } from './openai/commands/update-vector-store-file/update-vector-store-file.http.controller';
import { DeleteVectorStoreFileHttpController } from './openai/commands/delete-vector-store-file/delete-vector-store-file.http.controller';
import { CreateVectorStoreFileBatchHandler } from './openai/commands/create-vector-store-file-batch/create-vector-store-file-batch.handler';
import { CreateVectorStoreFileBatchHttpController } from './openai/commands/create-vector-store-file-batch/create-vector-store-file-batch.http.controller';
import { CancelVectorStoreFileBatchHandler } from './openai/commands/cancel-vector-store-file-batch/cancel-vector-store-file-batch.handler';
import { CancelVectorStoreFileBatchHttpController } from './openai/commands/cancel-vector-store-file-batch/cancel-vector-store-file-batch.http.controller';
import { GetVectorStoreHandler } from './openai/queries/get-vector-store/get-vector-store.handler';
import { GetVectorStoreHttpController } from './openai/queries/get-vector-store/get-vector-store.http.controller';
import { ListVectorStoresHandler } from './openai/queries/list-vector-stores/list-vector-stores.handler';
import { ListVectorStoresHttpController } from './openai/queries/list-vector-stores/list-vector-stores.http.controller';
import { GetVectorStoreFileHandler } from './openai/queries/get-vector-store-file/get-vector-store-file.handler';
import { GetVectorStoreFileHttpController } from './openai/queries/get-vector-store-file/get-vector-store-file.http.controller';
import { ListVectorStoreFilesHandler } from './openai/queries/list-vector-store-files/list-vector-store-files.handler';
import { ListVectorStoreFilesHttpController } from './openai/queries/list-vector-store-files/list-vector-store-files.http.controller';
import { GetVectorStoreFileContentHandler } from './openai/queries/get-vector-store-file-content/get-vector-store-file-content.handler';
import { GetVectorStoreFileContentHttpController } from './openai/queries/get-vector-store-file-content/get-vector-store-file-content.http.controller';
import { GetVectorStoreFileBatchHandler } from './openai/queries/get-vector-store-file-batch/get-vector-store-file-batch.handler';
import { GetVectorStoreFileBatchHttpController } from './openai/queries/get-vector-store-file-batch/get-vector-store-file-batch.http.controller';

export { STORES_CONFIG } from './stores.config';
export type { StoresConfig } from './stores.config';
export { IngestionWorker } from './ingestion/ingestion.worker';
export { StoreCopyReactor } from './copy/store-copy.reactor';

/**
 * Stores, store files and ingestion (`/v1/stores/**`), and the same stores in OpenAI's wire shape
 * (`/v1/vector_stores/**`, `openai/`: its own commands and queries over the same writers and readers,
 * or the Mixedbread routes' commands through the bus). Global: the files context removes files from stores through FILE_REFERENCES; file search answers store files through STORE_FILE_VIEWS. */
@Global()
@Module({
  imports: [CqrsModule],
  controllers: [
    // store files first, static paths (`list`, `upload`) before `:file_identifier`, `…/content` before `:file_identifier`
    ListStoreFilesHttpController,
    UploadStoreFileHttpController,
    AddStoreFileHttpController,
    DownloadStoreFileContentHttpController,
    GetStoreFileHttpController,
    UpdateStoreFileHttpController,
    DeleteStoreFileHttpController,
    // then stores: the collection before `:store_identifier`
    CreateStoreHttpController,
    ListStoresHttpController,
    GetStoreHttpController,
    UpdateStoreHttpController,
    DeleteStoreHttpController,
    CopyStoreHttpController,
    ReingestStoreHttpController,
    // OpenAI's vector stores: files and batches, then the stores themselves
    ListVectorStoreFilesHttpController,
    CreateVectorStoreFileHttpController,
    GetVectorStoreFileContentHttpController,
    GetVectorStoreFileHttpController,
    UpdateVectorStoreFileHttpController,
    DeleteVectorStoreFileHttpController,
    CreateVectorStoreFileBatchHttpController,
    GetVectorStoreFileBatchHttpController,
    CancelVectorStoreFileBatchHttpController,
    CreateVectorStoreHttpController,
    ListVectorStoresHttpController,
    GetVectorStoreHttpController,
    UpdateVectorStoreHttpController,
    DeleteVectorStoreHttpController,
  ],
  providers: [
    StoresReader,
    StoreFilesReader,
    FilesReader,
    BucketsReader,
    StoresWriter,
    StoreExternalIds,
    StoreFilesWriter,
    StoreFileAttacher,
    ContentUrls,
    AttachAuthority,
    IngestionWorker,
    StoreExpirySweeper,
    ExternalIdReconciler,
    { provide: FILE_REFERENCES, useExisting: StoreFilesWriter },
    StoreFileAnswers,
    { provide: STORE_FILE_VIEWS, useExisting: StoreFileAnswers },
    CreateStoreHandler,
    UpdateStoreHandler,
    DeleteStoreHandler,
    CopyStoreHandler,
    AddStoreFileHandler,
    UploadStoreFileHandler,
    UpdateStoreFileHandler,
    DeleteStoreFileHandler,
    ReingestStoreHandler,
    GetStoreHandler,
    ListStoresHandler,
    GetStoreFileHandler,
    ListStoreFilesHandler,
    DownloadStoreFileContentHandler,
    StoreFileBatchesReader,
    StoreFileBatchesWriter,
    CreateVectorStoreHandler,
    UpdateVectorStoreHandler,
    CreateVectorStoreFileHandler,
    UpdateVectorStoreFileHandler,
    CreateVectorStoreFileBatchHandler,
    CancelVectorStoreFileBatchHandler,
    GetVectorStoreHandler,
    ListVectorStoresHandler,
    GetVectorStoreFileHandler,
    ListVectorStoreFilesHandler,
    GetVectorStoreFileContentHandler,
    GetVectorStoreFileBatchHandler,
  ],
  exports: [FILE_REFERENCES, STORE_FILE_VIEWS, IngestionWorker],
})
export class StoresModule {}
