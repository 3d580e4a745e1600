import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, Principal } from '@larder/kernel';
import { EVENT_STORE, EventStore } from '@larder/event-store';
import type { LlmMessage } from '@larder/ai';
import type { ChatCompletionStored, StoredChatMessage } from './events';
import { chatCompletionStream } from '../streams';

/** A stored conversation up to a completion: its messages from the root on, and its root. */
export interface Conversation {
  rootCompletionId: string;
  messages: StoredChatMessage[];
  sources: ChatCompletionStored['data']['sources'];
}

/** Turns followed back from a `previous_completion_id` at most. */
const MAX_TURNS = 500;

/**
 * Stored completions (`store: true`): one stream per completion holding the messages its turn added
 * and the link to the turn before. A conversation is rebuilt by folding the streams from the root.
 */
@Injectable()
export class Conversations {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async save(event: ChatCompletionStored): Promise<void> {
    await this.store.appendToStream(
      chatCompletionStream(event.data.completionId),
      [
        {
          type: event.type,
          data: event.data,
          metadata: { orgId: event.data.organizationId, actor: event.data.apiKeyId },
        },
      ],
      {
        expectedRevision: 'no_stream',
      },
    );
  }

  /** The conversation up to `completionId`, in the caller's organization (404 otherwise, and for a completion that was not stored). */
  async load(p: Principal, completionId: string): Promise<Conversation> {
    const turns: ChatCompletionStored['data'][] = [];
    for (let id: string | null = completionId; id && turns.length < MAX_TURNS;) {
      const turn = await this.get(p, id);
      if (!turn)
        throw new NotFoundError(
          `Completion ${completionId} not found (only completions created with store: true can be continued)`,
        );
      turns.unshift(turn);
      id = turn.previousCompletionId;
    }
    return {
      rootCompletionId: turns[0].rootCompletionId,
      messages: turns.flatMap((t) => t.messages),
      sources: turns.flatMap((t) => t.sources ?? []),
    };
  }

  private async get(p: Principal, id: string): Promise<ChatCompletionStored['data'] | null> {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) return null;
    const events = await this.store.readStream(chatCompletionStream(id)).catch(() => []);
    const stored = events.find((e) => e.type === 'ChatCompletionStored');
    const data = stored?.data as unknown as ChatCompletionStored['data'] | undefined;
    return data && data.organizationId === p.organizationId ? data : null;
  }
}

/** A message as a stored turn keeps it, and as the model is sent it again: role, text, tool calls and call id. */
export function chatMessage(m: StoredChatMessage | LlmMessage): StoredChatMessage & LlmMessage {
  return {
    role: m.role,
    content: m.content,
    ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
  };
}
