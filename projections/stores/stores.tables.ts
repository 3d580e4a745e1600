/** Table names of the `stores` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const STORES_TABLE = 'stores_v1';
export const STORE_FILES_TABLE = 'store_files_v1';
