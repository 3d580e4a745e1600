import { CursorPage, NotFoundError, paginateByCursor } from '@larder/kernel';
import { ActivityReader, ActivityRow } from '@larder/projections/activity/activity.reader';
import type { StoresReader } from '@larder/projections/stores/stores.reader';
import { ActivityEventResponse, toActivityEventResponse } from './activity.response';
import type { ActivityListing } from './list-activity.request.dto';

/** A page of one kind of activity of an organization (or one of its stores), newest first. */
export function pageOfActivity(
  reader: ActivityReader,
  organizationId: string,
  storeId: string | null,
  l: ActivityListing,
): Promise<CursorPage<ActivityEventResponse>> {
  const q = { organizationId, kinds: [l.kind], storeId, before: l.filterBefore, after: l.filterAfter };
  return paginateByCursor<ActivityRow>(
    { limit: l.limit, after: l.after, before: l.before, include_total: l.includeTotal },
    (r) => ({ t: r.createdAt.toISOString(), id: r.id }),
    ({ cursor, direction, take }) => reader.page(q, cursor as { t: string; id: string } | null, direction, take),
    () => reader.count(q),
  ).then((page) => ({ ...page, data: page.data.map(toActivityEventResponse) }));
}

/** A store of the caller's organization by id or name; 404 otherwise. */
export async function storeIdOf(stores: StoresReader, organizationId: string, identifier: string): Promise<string> {
  const s = await stores.resolve(organizationId, identifier);
  if (!s) throw new NotFoundError(`Store ${identifier} not found`);
  return s.id;
}
