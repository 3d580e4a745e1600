import { streamName } from '@larder/kernel';
export const traceDestinationStream = (id: string) => streamName('trace_destination', id);
