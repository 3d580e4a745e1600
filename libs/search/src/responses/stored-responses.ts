import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, Principal, WrongExpectedRevisionError } from '@larder/kernel';
import { EVENT_STORE, EventStore } from '@larder/event-store';
import type { ResponseStored } from '../chat/events';
import type { Conversation } from '../chat/conversations';
import { responseStream } from '../streams';

/** Responses followed back from a `previous_response_id` at most. */
const MAX_TURNS = 500;

/**
 * Stored Responses API responses: one stream per response (`ResponseStored`, then `ResponseDeleted`
 * once deleted). A conversation is rebuilt by folding the streams from the first response on.
 */
@Injectable()
export class StoredResponses {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async save(event: ResponseStored): Promise<void> {
    const meta = { orgId: event.data.organizationId, actor: event.data.apiKeyId };
    await this.store.appendToStream(
      responseStream(event.data.responseId),
      [{ type: event.type, data: event.data, metadata: meta }],
      { expectedRevision: 'no_stream' },
    );
  }

  /** The stored response in the caller's organization (404 when absent, foreign, deleted or not stored). */
  async get(p: Principal, id: string): Promise<ResponseStored['data']> {
    const found = await this.find(p, id);
    if (!found) throw new NotFoundError(`Response with id '${id}' not found.`);
    return found;
  }

  async delete(p: Principal, id: string, at: Date): Promise<void> {
    const found = await this.get(p, id);
    const data = { responseId: found.responseId, organizationId: p.organizationId, at: at.toISOString() };
    // the stream holds exactly its stored event: a concurrent delete finds a revision it did not expect
    await this.store
      .appendToStream(
        responseStream(id),
        [{ type: 'ResponseDeleted', data, metadata: { orgId: p.organizationId, actor: p.apiKeyId } }],
        { expectedRevision: 0 },
      )
      .catch((err) => {
        throw err instanceof WrongExpectedRevisionError
          ? new NotFoundError(`Response with id '${id}' not found.`)
          : err;
      });
  }

  /** The conversation up to `id`: the messages of every turn from the first, and the passages they numbered. */
  async conversation(p: Principal, id: string): Promise<Pick<Conversation, 'messages' | 'sources'>> {
    const turns: ResponseStored['data'][] = [];
    for (let at: string | null = id; at && turns.length < MAX_TURNS;) {
      const turn = await this.find(p, at);
      if (!turn)
        throw new NotFoundError(
          `Previous response with id '${id}' not found (only responses created with store: true can be continued).`,
        );
      turns.unshift(turn);
      at = turn.previousResponseId;
    }
    return { messages: turns.flatMap((t) => t.messages), sources: turns.flatMap((t) => t.sources) };
  }

  private async find(p: Principal, id: string): Promise<ResponseStored['data'] | null> {
    if (!/^resp_[A-Za-z0-9_-]{1,200}$/.test(id)) return null;
    const events = await this.store.readStream(responseStream(id)).catch(() => []);
    if (events.some((e) => e.type === 'ResponseDeleted')) return null;
    const data = events.find((e) => e.type === 'ResponseStored')?.data as unknown as ResponseStored['data'] | undefined;
    return data && data.organizationId === p.organizationId ? data : null;
  }
}
