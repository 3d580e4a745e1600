import { createHmac, timingSafeEqual } from 'crypto';

/** What a signature is for: a signature made for one purpose never verifies for another. */
export type SignaturePurpose = 'part_url' | 'content_url' | 'tool_ticket';

/**
 * HMAC-SHA256 signatures under the server's signing secret, for everything Larder hands out and takes
 * back unauthenticated (part upload URLs, content URLs, tool tickets). The signed text is the purpose,
 * then the fields, joined by dots; verification is constant-time.
 */
export class Signer {
  constructor(private readonly secret: string) {}

  sign(purpose: SignaturePurpose, ...fields: Array<string | number>): string {
    return createHmac('sha256', this.secret)
      .update([purpose, ...fields].join('.'))
      .digest('base64url');
  }

  verify(purpose: SignaturePurpose, signature: string | undefined, ...fields: Array<string | number>): boolean {
    if (!signature) return false;
    const expected = Buffer.from(this.sign(purpose, ...fields));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** An expiring signed URL's `expires` (unix seconds) and `signature` query values: 'ok', or why not. */
export function checkExpiring(
  signer: Signer,
  purpose: SignaturePurpose,
  fields: Array<string | number>,
  expires: string | undefined,
  signature: string | undefined,
  nowMs: number,
): 'ok' | 'invalid' | 'expired' {
  if (!expires || !signature || !/^\d+$/.test(expires)) return 'invalid';
  if (!signer.verify(purpose, signature, ...fields, Number(expires))) return 'invalid';
  return Number(expires) * 1000 < nowMs ? 'expired' : 'ok';
}
