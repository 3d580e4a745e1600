import { streamName } from '@larder/kernel';
export const organizationStream = (id: string) => streamName('organization', id);
