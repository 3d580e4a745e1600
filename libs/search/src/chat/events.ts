/** A stored chat message (OpenAI roles; text content only). */
export interface StoredChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  annotations?: unknown[];
}

/**
 * A completion asked to be stored (`store: true`), in its own stream `chat_completion-<id>`: the
 * messages this turn added to the conversation (the request's messages, the hosted tool calls with
 * their results, the answer), and the link to the turn before. A later `previous_completion_id`
 * rebuilds the conversation by following the links to the root.
 */
export interface ChatCompletionStored {
  type: 'ChatCompletionStored';
  data: {
    completionId: string;
    organizationId: string;
    apiKeyId: string;
    rootCompletionId: string;
    previousCompletionId: string | null;
    model: string;
    messages: StoredChatMessage[];
    /** The passages this turn's hosted tools numbered for citation (numbering runs on across the conversation). */
    sources: Array<{ fileId: string; filename: string; storeId: string; chunkIndex: number; citable: boolean }>;
    finishReason: string;
    metadata: Record<string, string> | null;
    at: string;
  };
}

/**
 * A tool ticket was redeemed: the first append to `tool_ticket-<ticket id>` (expected revision
 * `no_stream`), so a second redemption fails even in another process.
 */
export interface ToolTicketRedeemed {
  type: 'ToolTicketRedeemed';
  data: {
    ticketId: string;
    organizationId: string;
    apiKeyId: string;
    completionId: string;
    toolCallId: string;
    /** `search` or `grep`. */
    operation: string;
    at: string;
  };
}

/**
 * A Responses API response kept for retrieval and continuation (`store`, true by default), in its own
 * stream `response-<id>`: the response as it was answered, its input items, the messages this turn
 * added to the conversation (its input, the tool calls with their results, the answer) and the link to
 * the response before (`previous_response_id`).
 */
export interface ResponseStored {
  type: 'ResponseStored';
  data: {
    responseId: string;
    organizationId: string;
    apiKeyId: string;
    previousResponseId: string | null;
    response: Record<string, unknown>;
    inputItems: Array<Record<string, unknown>>;
    messages: StoredChatMessage[];
    sources: ChatCompletionStored['data']['sources'];
    at: string;
  };
}

/** A stored response was deleted: it is no longer retrieved, listed or continued. */
export interface ResponseDeleted {
  type: 'ResponseDeleted';
  data: { responseId: string; organizationId: string; at: string };
}

export type ChatEvent = ChatCompletionStored | ToolTicketRedeemed | ResponseStored | ResponseDeleted;
export const CHAT_EVENT_TYPES = [
  'ChatCompletionStored',
  'ToolTicketRedeemed',
  'ResponseStored',
  'ResponseDeleted',
] as const;
