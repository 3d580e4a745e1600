/**
 * Authenticated encryption of the secrets Larder keeps for systems outside it (bucket keys, trace
 * destination credentials). Every ciphertext names the master key that sealed it, so the master key
 * can be rotated; `context` is bound as associated data, so a ciphertext moved to another record or
 * purpose does not open.
 */
export interface SecretBox {
  /** The id of the master key new ciphertexts are sealed with. */
  readonly currentKeyId: string;
  seal(plaintext: string, context: string): string;
  /** Throws SecretUnreadableError when the key is unknown or the ciphertext or context was altered. */
  open(sealed: string, context: string): string;
  keyIdOf(sealed: string): string;
}

export const SECRET_BOX = Symbol('SECRET_BOX');

export class SecretUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnreadableError';
  }
}
