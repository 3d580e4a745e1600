/** Table names of the `billing` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const BILLING_USAGE_TABLE = 'billing_usage_v1';
export const BILLING_STORAGE_TABLE = 'billing_storage_v1';
export const BILLING_FREE_TABLE = 'billing_free_v1';
