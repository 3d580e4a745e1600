import { streamName } from '@larder/kernel';
export const bucketStream = (id: string) => streamName('bucket', id);
/** One per organization: its STS external id. */
export const bucketExternalIdStream = (organizationId: string) => streamName('bucket_external_id', organizationId);
