/** Table names of the `trace-destinations` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const TRACE_DESTINATIONS_TABLE = 'trace_destinations_v1';
