import { eventStoreContract } from '../testing/event-store.contract';
import { InMemoryEventStore } from './in-memory.event-store';

eventStoreContract('in-memory', async () => {
  const store = new InMemoryEventStore();
  return { store, close: () => store.close() };
});
