import { Injectable } from '@nestjs/common';
import { isUuid } from '@larder/kernel';
import { DataSource } from 'typeorm';
import { OrganizationEntity } from './organization.entity';

@Injectable()
export class OrganizationsReader {
  constructor(private readonly ds: DataSource) {}

  get(id: string): Promise<OrganizationEntity | null> {
    if (!isUuid(id)) return Promise.resolve(null);
    return this.ds.getRepository(OrganizationEntity).findOneBy({ id });
  }

  list(): Promise<OrganizationEntity[]> {
    return this.ds.getRepository(OrganizationEntity).find({ order: { createdAt: 'ASC' } });
  }
}
