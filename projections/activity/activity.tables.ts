/** Table names of the `activity` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const ACTIVITY_TABLE = 'activity_v1';
