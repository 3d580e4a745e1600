/** Table names of the `organizations` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const ORGANIZATIONS_TABLE = 'organizations_v1';
