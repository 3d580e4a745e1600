import { createHmac, timingSafeEqual } from 'crypto';

/** HMAC-signed, expiring part URLs for uploads whose parts Larder receives itself. */
export class PartUrlSigner {
  constructor(private readonly secret: string) {}

  private mac(uploadId: string, partNumber: number, expires: number): string {
    return createHmac('sha256', this.secret).update(`${uploadId}.${partNumber}.${expires}`).digest('base64url');
  }

  url(baseUrl: string, uploadId: string, partNumber: number, expires: number): string {
    return `${baseUrl.replace(/\/$/, '')}/v1/files/uploads/${uploadId}/parts/${partNumber}?expires=${expires}&signature=${this.mac(uploadId, partNumber, expires)}`;
  }

  /** 'ok', or why not. */
  verify(uploadId: string, partNumber: number, expires: string | undefined, signature: string | undefined, nowMs: number): 'ok' | 'invalid' | 'expired' {
    if (!expires || !signature || !/^\d+$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.mac(uploadId, partNumber, Number(expires)));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    if (Number(expires) * 1000 < nowMs) return 'expired';
    return 'ok';
  }
}
