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
    /** Sets a response header (before a stream opens): `Larder-Web-Search` of a question naming the web store. */
    readonly setHeader?: (name: string, value: string) => void,
  ) {}
}
