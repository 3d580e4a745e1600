/** Table names of the `buckets` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const BUCKETS_TABLE = 'buckets_v1';
