import { checkExpiring, Signer } from '@larder/kernel';

/** Signed, expiring URLs to a store file's original content (`content_url`). */
export class ContentUrlSigner {
  private readonly signer: Signer;
  constructor(secret: string) {
    this.signer = new Signer(secret);
  }

  url(baseUrl: string, storeId: string, fileId: string, expires: number): string {
    const signature = this.signer.sign('content_url', storeId, fileId, expires);
    return `${baseUrl.replace(/\/$/, '')}/v1/stores/${storeId}/files/${fileId}/content?expires=${expires}&signature=${signature}`;
  }

  verify(
    storeId: string,
    fileId: string,
    expires: string | undefined,
    signature: string | undefined,
    nowMs: number,
  ): boolean {
    return checkExpiring(this.signer, 'content_url', [storeId, fileId], expires, signature, nowMs) === 'ok';
  }
}
