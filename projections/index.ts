import { Projection } from './runner/projection';
import { ApiKeysProjection } from './api-keys/api-keys.projection';
import { OrganizationsProjection } from './organizations/organizations.projection';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { OrganizationEntity } from './organizations/organization.entity';

/** The registry: every projection with its name, version and handled event types. */
export function allProjections(): Projection[] {
  return [new OrganizationsProjection(), new ApiKeysProjection()];
}

/** TypeORM entities of all read models. */
export const READ_MODEL_ENTITIES = [ApiKeyEntity, OrganizationEntity];
