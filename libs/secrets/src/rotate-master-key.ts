import type { KeyringSource } from './keyring';
import type { SecretVault } from './secret-vault.port';

export interface MasterKeyRotation {
  previousKeyId: string;
  currentKeyId: string;
  resealed: number;
  /** Keys kept because something still uses them (sealed by a server that had not seen the new key yet). */
  retained: string[];
}

/**
 * `npm run cli -- secrets rotate`: with the keyring file, a new master key becomes current, every
 * stored secret is re-sealed with it, and the old keys are dropped once nothing uses them. With
 * LARDER_SECRETS_KEY the operator has already put the new key in place (the old one in
 * LARDER_SECRETS_PREVIOUS_KEYS); the secrets are re-sealed with it and the old key can then be removed.
 */
export async function rotateMasterKey(source: KeyringSource, vault: SecretVault): Promise<MasterKeyRotation> {
  const previousKeyId = source.load().current;
  const ring = source.addCurrent ? source.addCurrent() : source.load();
  let { resealed, keyIdsInUse } = await vault.reseal();
  // a server that sealed with the old key between the two steps left a row behind: once more
  if (keyIdsInUse.some((id) => id !== ring.current)) {
    const again = await vault.reseal();
    resealed += again.resealed;
    keyIdsInUse = again.keyIdsInUse;
  }
  const retained = keyIdsInUse.filter((id) => id !== ring.current);
  if (source.retire) source.retire(retained);
  return { previousKeyId, currentKeyId: ring.current, resealed, retained };
}
