import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ScopeEntry } from '@larder/kernel';
import { API_KEYS_TABLE } from './api-keys.tables';

@Entity({ name: API_KEYS_TABLE })
export class ApiKeyEntity {
  @PrimaryColumn('uuid') id!: string;
  @Index() @Column('uuid', { name: 'organization_id' }) organizationId!: string;
  @Column('text') name!: string;
  @Index({ unique: true }) @Column('text', { name: 'secret_hash' }) secretHash!: string;
  @Column('text', { name: 'redacted_value' }) redactedValue!: string;
  @Column('jsonb', { nullable: true }) scope!: ScopeEntry[] | null;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt!: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
  @Column('boolean') admin!: boolean;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
  @Column('timestamptz', { name: 'last_active_at', nullable: true }) lastActiveAt!: Date | null;
  @Column('bigint') revision!: string;
}
