import { randomBytes } from 'crypto';
import { messageBusContract } from '../testing/message-bus.contract';
import { NatsMessageBus } from './nats.message-bus';

const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

messageBusContract('NATS JetStream (machine server)', async () => {
  const tag = randomBytes(4).toString('hex');
  const prefix = `larder_test_${tag}`;
  const bus = await NatsMessageBus.connect({
    url: TEST_NATS_URL,
    stream: `LARDER_TEST_${tag.toUpperCase()}`,
    subjects: [`${prefix}.>`],
  });
  return {
    bus,
    prefix,
    close: async () => {
      await bus.destroyStream();
      await bus.close();
    },
  };
});
