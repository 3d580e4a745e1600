import { Signer } from '@larder/kernel';
import { ToolTicketSigner, ToolTicketClaims } from './tool-ticket.signer';

describe('ToolTicketSigner', () => {
  const signer = new ToolTicketSigner('a-signing-secret-of-the-server');
  const claims: ToolTicketClaims = {
    ticketId: 't-1',
    organizationId: 'org-a',
    completionId: 'chatcmpl-1',
    toolCallId: 'call_1',
    expiresAt: 2_000,
  };
  const now = 1_000_000; // ms: before the expiry (2000 s)

  it('verifies its own ticket and returns the claims', () => {
    const ticket = signer.sign(claims);
    expect(ticket).toMatch(/^mxtt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(signer.verify(ticket, 'org-a', now)).toEqual({ ok: true, claims });
  });

  it('refuses a ticket of another organization', () => {
    expect(signer.verify(signer.sign(claims), 'org-b', now)).toEqual({ ok: false, reason: 'wrong_organization' });
  });

  it('refuses an expired ticket (at the second it expires)', () => {
    expect(signer.verify(signer.sign(claims), 'org-a', 2_000_000)).toEqual({ ok: false, reason: 'expired' });
    expect(signer.verify(signer.sign(claims), 'org-a', 1_999_999).ok).toBe(true);
  });

  it('refuses tampered claims, a tampered mac, and a ticket signed with another secret', () => {
    const [prefix, body, mac] = signer.sign(claims).split('.');
    const forged = Buffer.from(
      JSON.stringify({ id: 't-1', org: 'org-a', cmp: 'chatcmpl-1', call: 'call_1', exp: 9_999_999_999 }),
    ).toString('base64url');
    expect(signer.verify(`${prefix}.${forged}.${mac}`, 'org-a', now)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(
      signer.verify(`${prefix}.${body}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`, 'org-a', now),
    ).toEqual({ ok: false, reason: 'bad_signature' });
    expect(signer.verify(new ToolTicketSigner('another-secret').sign(claims), 'org-a', now)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses malformed input without throwing', () => {
    for (const t of ['', 'mxtt1', 'mxtt1..', 'mxtt1.a.b.c', 'other.abc.def', 'mxtt1.a b.c', 'x'.repeat(5000)])
      expect(signer.verify(t, 'org-a', now).ok).toBe(false);
    // a correctly signed body that is not JSON claims
    const body = Buffer.from('not json').toString('base64url');
    const mac = new Signer('a-signing-secret-of-the-server').sign('tool_ticket', body);
    expect(signer.verify(`mxtt1.${body}.${mac}`, 'org-a', now)).toEqual({ ok: false, reason: 'malformed' });
  });
});
