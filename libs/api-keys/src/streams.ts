import { streamName } from '@larder/kernel';
export const apiKeyStream = (id: string) => streamName('api_key', id);
