import { Injectable } from '@nestjs/common';
import { isUuid } from '@larder/kernel';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';

/** A key as the reader answers it. */
export type ApiKeyRow = ApiKeyEntity;

/** Queries over the `api-keys` read model. Every query but the secret lookup is organization-scoped. */
@Injectable()
export class ApiKeysReader {
  constructor(private readonly ds: DataSource) {}

  findBySecretHash(secretHash: string): Promise<ApiKeyEntity | null> {
    return this.ds.getRepository(ApiKeyEntity).findOneBy({ secretHash });
  }

  get(organizationId: string, id: string): Promise<ApiKeyEntity | null> {
    if (!isUuid(id)) return Promise.resolve(null);
    return this.ds.getRepository(ApiKeyEntity).findOneBy({ organizationId, id });
  }

  async list(organizationId: string, limit: number, offset: number): Promise<{ rows: ApiKeyEntity[]; total: number }> {
    const [rows, total] = await this.ds.getRepository(ApiKeyEntity).findAndCount({
      where: { organizationId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
    return { rows, total };
  }
}
