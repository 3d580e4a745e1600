/** Chat completions and tool tickets. */
export interface ChatConfig {
  /** HMAC key of tool tickets (the server's signing secret, shared with part URLs and content URLs). */
  signingSecret: string;
  /** Lifetime of a tool ticket (LARDER_TOOL_TICKET_TTL_SECONDS, default 900). */
  toolTicketTtlSeconds: number;
}
export const CHAT_CONFIG = Symbol('CHAT_CONFIG');
