import { RandomIdGenerator } from '@larder/kernel';
import { hashSecret, newSecret, redact, SECRET_BODY_LENGTH } from './secrets';

describe('API key secrets', () => {
  it('are issued as mxb_ + 43 base62 characters, each one different', () => {
    const ids = new RandomIdGenerator();
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const s = newSecret(ids);
      expect(s).toMatch(/^mxb_[A-Za-z0-9]{43}$/);
      seen.add(s);
    }
    expect(seen.size).toBe(200);
  });

  it('keep drawing when the randomness holds few base62 characters', () => {
    // a source that answers mostly '-' and '_' still yields a full-length key
    let n = 0;
    const stingy = { secret: () => `${'-_'.repeat(30)}a${String.fromCharCode(65 + (n++ % 26))}` };
    const s = newSecret(stingy);
    expect(s).toMatch(new RegExp(`^mxb_[A-Za-z]{${SECRET_BODY_LENGTH}}$`));
  });

  it('show their own prefix and last four characters when redacted, older lrd_ keys too', () => {
    expect(redact('mxb_abcdefghijklmnopqrstuvwxyz0123456789WXYZ')).toBe('mxb_************WXYZ');
    expect(redact('lrd_abcdefghijklmnopqrstuvwxyz0123456789WXYZ')).toBe('lrd_************WXYZ');
    // an operator's own secret: no prefix shown, and a short one shows nothing of itself
    expect(redact('operator-chosen-root-secret-1234')).toBe('************1234');
    expect(redact('mxb_short')).toBe('mxb_************');
  });

  it('are found by the SHA-256 of the whole secret, whatever its prefix', () => {
    expect(hashSecret('lrd_x')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret('lrd_x')).not.toBe(hashSecret('mxb_x'));
  });
});
