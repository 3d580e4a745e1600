import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  Clock,
  DomainError,
  ID_GENERATOR,
  IdGenerator,
  Principal,
  WrongExpectedRevisionError,
} from '@larder/kernel';
import { EVENT_STORE, EventStore } from '@larder/event-store';
import { CHAT_CONFIG, ChatConfig } from '../chat/chat.config';
import type { ToolTicketRedeemed } from '../chat/events';
import { toolTicketStream } from '../streams';
import { ToolTicketSigner } from './tool-ticket.signer';

/** A ticket that is not valid here: forged, tampered, expired, or another organization's (403). */
export class ToolTicketRefusedError extends DomainError {
  readonly status = 403;
  constructor(
    message: string,
    readonly type: 'invalid_tool_ticket' | 'tool_ticket_expired' | 'tool_ticket_wrong_organization',
  ) {
    super(message);
    this.headers = { 'x-should-retry': 'false' };
  }
}

/** A ticket that was already redeemed (409; not retried by the client). */
export class ToolTicketUsedError extends DomainError {
  readonly status = 409;
  readonly type = 'tool_ticket_used';
  constructor(message: string) {
    super(message);
    this.headers = { 'x-should-retry': 'false' };
  }
}

export interface IssuedToolTicket {
  tool_call_id: string;
  ticket: string;
  /** Unix seconds. */
  expires_at: number;
}

/**
 * One-shot tool tickets: a completion that returns client tool calls issues one per call; the
 * caller's tool implementation sends it as `X-Mxbai-Tool-Ticket` on its search or grep, which then
 * counts as the completion's tool call (linked in the activity event, billed at the agent rate).
 */
@Injectable()
export class ToolTickets {
  private readonly signer: ToolTicketSigner;

  constructor(
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {
    this.signer = new ToolTicketSigner(config.signingSecret);
  }

  issue(p: Principal, completionId: string, toolCallId: string): IssuedToolTicket {
    const expiresAt = Math.floor(this.clock.now().getTime() / 1000) + this.config.toolTicketTtlSeconds;
    const ticket = this.signer.sign({
      ticketId: this.ids.uuid(),
      organizationId: p.organizationId,
      completionId,
      toolCallId,
      expiresAt,
    });
    return { tool_call_id: toolCallId, ticket, expires_at: expiresAt };
  }

  /**
   * Redeems a ticket for one `operation` by `p`, before the operation runs: the redemption is
   * appended to the ticket's own stream with expected revision `no_stream`, so of two uses (in any
   * processes) exactly one succeeds. Returns the principal the operation runs as (linked to the
   * tool call). Refused tickets throw 403; a used one 409.
   */
  async redeem(p: Principal, ticket: string, operation: 'search' | 'grep'): Promise<Principal> {
    const check = this.signer.verify(ticket, p.organizationId, this.clock.now().getTime());
    if (!check.ok) {
      switch (check.reason) {
        case 'expired':
          throw new ToolTicketRefusedError(
            'The tool ticket has expired; ask the chat completion for a new one',
            'tool_ticket_expired',
          );
        case 'wrong_organization':
          throw new ToolTicketRefusedError(
            'The tool ticket was issued to another organization',
            'tool_ticket_wrong_organization',
          );
        default:
          throw new ToolTicketRefusedError(
            'The tool ticket is not valid (not issued by this server, or altered)',
            'invalid_tool_ticket',
          );
      }
    }
    const c = check.claims;
    const event: ToolTicketRedeemed = {
      type: 'ToolTicketRedeemed',
      data: {
        ticketId: c.ticketId,
        organizationId: p.organizationId,
        apiKeyId: p.apiKeyId,
        completionId: c.completionId,
        toolCallId: c.toolCallId,
        operation,
        at: this.clock.now().toISOString(),
      },
    };
    try {
      await this.store.appendToStream(
        toolTicketStream(c.ticketId),
        [{ type: event.type, data: event.data, metadata: { orgId: p.organizationId, actor: p.apiKeyId } }],
        {
          expectedRevision: 'no_stream',
        },
      );
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError)
        throw new ToolTicketUsedError('The tool ticket was already used: a ticket redeems one search or grep');
      throw err;
    }
    return { ...p, toolCall: { completionId: c.completionId, toolCallId: c.toolCallId, via: 'tool_ticket' } };
  }
}
