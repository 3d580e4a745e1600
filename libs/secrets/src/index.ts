export * from './secret-box.port';
export * from './secret-vault.port';
export * from './keyring';
export * from './aes-gcm.secret-box';
export * from './rotate-master-key';
