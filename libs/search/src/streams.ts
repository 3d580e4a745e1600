import { streamName } from '@larder/kernel';
export const searchRuleStream = (id: string) => streamName('search_rule', id);
/** Search, grep and listing activity of an organization, appended off the request path. */
export const searchActivityStream = (organizationId: string) => streamName('search_activity', organizationId);
