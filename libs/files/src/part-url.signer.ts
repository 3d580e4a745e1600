import { checkExpiring, Signer } from '@larder/kernel';

/** Signed, expiring part URLs for uploads whose parts Larder receives itself. */
export class PartUrlSigner {
  private readonly signer: Signer;
  constructor(secret: string) {
    this.signer = new Signer(secret);
  }

  url(baseUrl: string, uploadId: string, partNumber: number, expires: number): string {
    const signature = this.signer.sign('part_url', uploadId, partNumber, expires);
    return `${baseUrl.replace(/\/$/, '')}/v1/files/uploads/${uploadId}/parts/${partNumber}?expires=${expires}&signature=${signature}`;
  }

  /** 'ok', or why not. */
  verify(
    uploadId: string,
    partNumber: number,
    expires: string | undefined,
    signature: string | undefined,
    nowMs: number,
  ): 'ok' | 'invalid' | 'expired' {
    return checkExpiring(this.signer, 'part_url', [uploadId, partNumber], expires, signature, nowMs);
  }
}
