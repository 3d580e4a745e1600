/** Table names of the `stores` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const STORES_TABLE = 'stores_v2';
export const STORE_FILES_TABLE = 'store_files_v2';
export const STORE_FILE_BATCHES_TABLE = 'store_file_batches_v2';
