import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Get,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { RequireScope } from '@larder/kernel';
import { OPENAI_POLL_AFTER_MS } from './vector-store.response';

/** Sets `openai-poll-after-ms` on an answer still `in_progress`: it tells the client's poller when to ask again. */
@Injectable()
export class PollAfterInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = ctx.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((answer: { status?: unknown } | null) => {
        if (answer?.status === 'in_progress') res.setHeader('openai-poll-after-ms', String(OPENAI_POLL_AFTER_MS));
        return answer;
      }),
    );
  }
}

/**
 * A `GET` of a vector store's file or file batch, which the client's pollers (`uploadAndPoll`, `createAndPoll`)
 * repeat: `read` on the vector store, and `openai-poll-after-ms` while the answer is `in_progress`.
 */
export const PolledGet = (path: string) =>
  applyDecorators(
    Get(path),
    RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'vector_store_id' }),
    UseInterceptors(PollAfterInterceptor),
  );
