import { streamName } from '@larder/kernel';
export const searchRuleStream = (id: string) => streamName('search_rule', id);
/** Search, grep, listing and model (embeddings, reranking) activity of an organization, appended off the request path. */
export const searchActivityStream = (organizationId: string) => streamName('search_activity', organizationId);
/** A stored chat completion (`store: true`). */
export const chatCompletionStream = (completionId: string) => streamName('chat_completion', completionId);
/** A stored Responses API response (`store`, the default), and its deletion. */
export const responseStream = (responseId: string) => streamName('response', responseId);
/** A tool ticket's redemption (at most one event). */
export const toolTicketStream = (ticketId: string) => streamName('tool_ticket', ticketId);
