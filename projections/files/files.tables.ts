/** Table names of the `files` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const FILES_TABLE = 'files_v3';
