import { eventStoreContract } from '../testing/event-store.contract';
import { EsdbEventStore } from './esdb.event-store';

const url = process.env.EVENTSTORE_URL;
if (url) {
  eventStoreContract('EventStoreDB', async () => {
    const store = EsdbEventStore.fromConnectionString(url);
    return { store, close: () => store.close() };
  });
} else {
  // eslint-disable-next-line no-console
  console.warn('EsdbEventStore contract suite SKIPPED: set EVENTSTORE_URL (docker-compose) to run it.');
  describe('EventStore contract: EventStoreDB', () => {
    it.skip('SKIPPED: EVENTSTORE_URL is not set (start EventStoreDB with `docker compose up eventstore`)', () =>
      undefined);
  });
}
