/**
 * Where sealed secrets live, outside the event log: events carry only a vault reference, so a secret
 * can be discarded for good (a deleted destination's keys are gone, not merely superseded) and a
 * master-key rotation re-encrypts every secret in place.
 */
export interface SecretVault {
  /** Seals `plaintext` for `purpose` and stores it; resolves to its reference (`sec_…`). */
  put(organizationId: string, purpose: string, plaintext: string): Promise<string>;
  /** The plaintext; throws SecretUnreadableError when it is missing or does not open. */
  get(organizationId: string, purpose: string, ref: string): Promise<string>;
  /** Forgets it (a missing reference is not an error). */
  remove(organizationId: string, ref: string): Promise<void>;
  /** Re-seals every stored secret with the current master key; the master keys still referenced after it. */
  reseal(): Promise<{ resealed: number; keyIdsInUse: string[] }>;
}

export const SECRET_VAULT = Symbol('SECRET_VAULT');
