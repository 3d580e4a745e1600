import type { Principal } from '@larder/kernel';
import type { ChunkSink } from '../../chat/completion-chunks';
import type { ChatParams } from './create-chat-completion.request.dto';

export class CreateChatCompletionCommand {
  constructor(
    readonly principal: Principal,
    readonly params: ChatParams,
    /** A streamed completion (`stream: true`): its chunks go here. */
    readonly sink?: ChunkSink,
    /** Aborts when the client goes away: the model request stops. */
    readonly signal?: AbortSignal,
  ) {}
}
