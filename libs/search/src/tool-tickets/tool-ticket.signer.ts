import { Signer } from '@larder/kernel';

/** What a tool ticket grants: one search or grep for this tool call of this completion, in this organization, until `expiresAt`. */
export interface ToolTicketClaims {
  /** The ticket's own id (its redemption stream is `tool_ticket-<id>`). */
  ticketId: string;
  organizationId: string;
  completionId: string;
  toolCallId: string;
  /** Unix seconds. */
  expiresAt: number;
}

export type TicketCheck =
  | { ok: true; claims: ToolTicketClaims }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' | 'wrong_organization' };

const PREFIX = 'mxtt1';
const MAX_TICKET_CHARS = 2048;

/**
 * Tool tickets: `mxtt1.<claims>.<mac>`, the claims as base64url JSON and the mac the server's signature
 * (kernel's Signer) of the claims for the purpose `tool_ticket`.
 * Verification is constant-time and checks the signature before it believes anything in the claims.
 */
export class ToolTicketSigner {
  private readonly signer: Signer;
  constructor(secret: string) {
    this.signer = new Signer(secret);
  }

  sign(c: ToolTicketClaims): string {
    const claims = Buffer.from(
      JSON.stringify({
        id: c.ticketId,
        org: c.organizationId,
        cmp: c.completionId,
        call: c.toolCallId,
        exp: c.expiresAt,
      }),
    ).toString('base64url');
    return `${PREFIX}.${claims}.${this.signer.sign('tool_ticket', claims)}`;
  }

  /** The claims of a ticket this server signed, for `organizationId`, not expired at `nowMs`. */
  verify(ticket: string, organizationId: string, nowMs: number): TicketCheck {
    if (typeof ticket !== 'string' || ticket.length > MAX_TICKET_CHARS) return { ok: false, reason: 'malformed' };
    const parts = ticket.trim().split('.');
    if (
      parts.length !== 3 ||
      parts[0] !== PREFIX ||
      !/^[A-Za-z0-9_-]+$/.test(parts[1]) ||
      !/^[A-Za-z0-9_-]+$/.test(parts[2])
    )
      return { ok: false, reason: 'malformed' };
    if (!this.signer.verify('tool_ticket', parts[2], parts[1])) return { ok: false, reason: 'bad_signature' };
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    const r = raw as Record<string, unknown>;
    if (
      !r ||
      typeof r !== 'object' ||
      [r.id, r.org, r.cmp, r.call].some((x) => typeof x !== 'string' || !x) ||
      typeof r.exp !== 'number'
    )
      return { ok: false, reason: 'malformed' };
    const claims: ToolTicketClaims = {
      ticketId: r.id as string,
      organizationId: r.org as string,
      completionId: r.cmp as string,
      toolCallId: r.call as string,
      expiresAt: r.exp,
    };
    if (claims.organizationId !== organizationId) return { ok: false, reason: 'wrong_organization' };
    if (claims.expiresAt * 1000 <= nowMs) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }
}
