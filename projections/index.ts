import { Projection } from './runner/projection';
import { ApiKeysProjection } from './api-keys/api-keys.projection';
import { OrganizationsProjection } from './organizations/organizations.projection';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { OrganizationEntity } from './organizations/organization.entity';
import { FilesProjection } from './files/files.projection';
import { FileUploadsProjection } from './file-uploads/file-uploads.projection';
import { FileEntity } from './files/file.entity';
import { FileUploadEntity } from './file-uploads/file-upload.entity';
import { StoresProjection } from './stores/stores.projection';
import { SearchRulesProjection } from './search/search-rules.projection';
import { ActivityProjection } from './activity/activity.projection';
import { BillingProjection } from './billing/billing.projection';
import { BucketsProjection } from './buckets/buckets.projection';
import { TraceDestinationsProjection } from './trace-destinations/trace-destinations.projection';

/** The registry: every projection with its name, version and handled event types. */
export function allProjections(): Projection[] {
  return [
    new OrganizationsProjection(),
    new ApiKeysProjection(),
    new FilesProjection(),
    new FileUploadsProjection(),
    new StoresProjection(),
    new SearchRulesProjection(),
    new ActivityProjection(),
    new BillingProjection(),
    new BucketsProjection(),
    new TraceDestinationsProjection(),
  ];
}

/** TypeORM entities of all read models. */
export const READ_MODEL_ENTITIES = [ApiKeyEntity, OrganizationEntity, FileEntity, FileUploadEntity];
