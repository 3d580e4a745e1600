/** Table names of the `api-keys` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const API_KEYS_TABLE = 'api_keys_v1';
