import { createHmac, timingSafeEqual } from 'crypto';

/** HMAC-signed, expiring URLs to a store file's original content (`content_url`). */
export class ContentUrlSigner {
  constructor(private readonly secret: string) {}

  private mac(storeId: string, fileId: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`content.${storeId}.${fileId}.${expires}`).digest('base64url');
  }

  url(baseUrl: string, storeId: string, fileId: string, expires: number): string {
    return `${baseUrl.replace(/\/$/, '')}/v1/stores/${storeId}/files/${fileId}/content?expires=${expires}&signature=${this.mac(storeId, fileId, expires)}`;
  }

  verify(storeId: string, fileId: string, expires: string | undefined, signature: string | undefined, nowMs: number): boolean {
    if (!expires || !signature || !/^\d+$/.test(expires)) return false;
    const expected = Buffer.from(this.mac(storeId, fileId, Number(expires)));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given) && Number(expires) * 1000 >= nowMs;
  }
}
