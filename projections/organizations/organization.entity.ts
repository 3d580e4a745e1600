import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ORGANIZATIONS_TABLE } from './organizations.tables';

@Entity({ name: ORGANIZATIONS_TABLE })
export class OrganizationEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') name!: string;
  @Column('boolean') root!: boolean;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('bigint') revision!: string;
}
