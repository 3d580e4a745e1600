/** The stores are named in the body: the query handlers check `search` (or `read`) on each store they resolve (`StoreAccess`). */
export const SEARCH_SCOPE = { method: 'search', resourceType: 'store', checkedPerResource: true } as const;
