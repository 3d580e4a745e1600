import { checkExpiring, Signer } from './signing';

describe('Signer: one HMAC signature for every signed thing, tagged with its purpose', () => {
  const signer = new Signer('a-test-secret-0123456789');

  it('verifies what it signed, and nothing else: another purpose, other fields, another secret', () => {
    const sig = signer.sign('part_url', 'upload-1', 3, 1_900_000_000);
    expect(signer.verify('part_url', sig, 'upload-1', 3, 1_900_000_000)).toBe(true);
    expect(signer.verify('content_url', sig, 'upload-1', 3, 1_900_000_000)).toBe(false);
    expect(signer.verify('part_url', sig, 'upload-1', 4, 1_900_000_000)).toBe(false);
    expect(signer.verify('part_url', sig, 'upload-2', 3, 1_900_000_000)).toBe(false);
    expect(new Signer('another-secret-0123456789').verify('part_url', sig, 'upload-1', 3, 1_900_000_000)).toBe(false);
    expect(signer.verify('part_url', undefined, 'upload-1', 3, 1_900_000_000)).toBe(false);
    expect(signer.verify('part_url', sig.slice(1), 'upload-1', 3, 1_900_000_000)).toBe(false);
  });

  it('checks an expiring URL: ok until it expires, then expired; malformed or forged is invalid', () => {
    const expires = 2_000_000_000;
    const sig = signer.sign('content_url', 'store', 'file', expires);
    expect(checkExpiring(signer, 'content_url', ['store', 'file'], String(expires), sig, expires * 1000 - 1)).toBe(
      'ok',
    );
    expect(checkExpiring(signer, 'content_url', ['store', 'file'], String(expires), sig, expires * 1000 + 1)).toBe(
      'expired',
    );
    expect(checkExpiring(signer, 'content_url', ['store', 'file'], String(expires + 1), sig, 0)).toBe('invalid');
    expect(checkExpiring(signer, 'content_url', ['store', 'file'], '12x', sig, 0)).toBe('invalid');
    expect(checkExpiring(signer, 'part_url', ['store', 'file'], String(expires), sig, 0)).toBe('invalid');
  });
});
