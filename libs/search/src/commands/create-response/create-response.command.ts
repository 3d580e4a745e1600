import type { Principal } from '@larder/kernel';
import type { ResponseEventSink } from '../../responses/response-output';
import type { ResponseParams } from './create-response.request.dto';

export class CreateResponseCommand {
  constructor(
    readonly principal: Principal,
    readonly params: ResponseParams,
    /** A streamed response (`stream: true`): its events go here. */
    readonly sink?: ResponseEventSink,
    /** Aborts when the client goes away: the model request stops. */
    readonly signal?: AbortSignal,
  ) {}
}
