import { Global, Module } from '@nestjs/common';
import { FILE_REFERENCES } from '@larder/kernel';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { FilesReader } from '@larder/projections/files/files.reader';
import { StoresWriter } from './stores.writer';
import { StoreFilesWriter } from './store-files.writer';
import { IngestionWorker } from './ingestion/ingestion.worker';
import { StoreExpirySweeper } from './ingestion/store-expiry.sweeper';
import { StoresHttpController } from './http/stores.http.controller';
import { StoreFilesHttpController } from './http/store-files.http.controller';
import { AdminReingestHttpController } from './http/admin-reingest.http.controller';

export { STORES_CONFIG } from './stores.config';
export type { StoresConfig } from './stores.config';
export { IngestionWorker } from './ingestion/ingestion.worker';
export { StoreCopyReactor } from './copy/store-copy.reactor';

/** Stores, store files and ingestion (contract §12–§13). Global: the files context removes files from stores through FILE_REFERENCES. */
@Global()
@Module({
  controllers: [StoreFilesHttpController, StoresHttpController, AdminReingestHttpController],
  providers: [
    StoresReader,
    StoreFilesReader,
    FilesReader,
    StoresWriter,
    StoreFilesWriter,
    IngestionWorker,
    StoreExpirySweeper,
    { provide: FILE_REFERENCES, useExisting: StoreFilesWriter },
  ],
  exports: [FILE_REFERENCES, IngestionWorker],
})
export class StoresModule {}
