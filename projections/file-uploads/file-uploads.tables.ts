/** Table names of the `file-uploads` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const FILE_UPLOADS_TABLE = 'file_uploads_v1';
