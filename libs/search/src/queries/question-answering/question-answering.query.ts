import type { LiveEvents, Principal } from '@larder/kernel';
import type { QuestionAnsweringParams } from './question-answering.request.dto';

export class QuestionAnsweringQuery {
  constructor(
    readonly principal: Principal,
    readonly params: QuestionAnsweringParams,
    /** A streamed answer (`stream: true`): sources, answer deltas and the agentic trace go here. */
    readonly live?: LiveEvents,
    /** Aborts when the client goes away: the work stops. */
    readonly signal?: AbortSignal,
  ) {}
}
