import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { firstValueFrom, of } from 'rxjs';
import { PollAfterInterceptor } from './polled-get';
import { OPENAI_POLL_AFTER_MS } from './vector-store.response';

/** The headers the interceptor sets on the answer to `answer`, and what it passes on. */
async function headersFor(answer: unknown): Promise<{ headers: Record<string, string>; out: unknown }> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => void (headers[name] = value) };
  const ctx = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ExecutionContext;
  const next: CallHandler = { handle: () => of(answer) };
  const out = await firstValueFrom(new PollAfterInterceptor().intercept(ctx, next));
  return { headers, out };
}

describe('PollAfterInterceptor', () => {
  it('asks a poller to come back while the answer is in progress', async () => {
    const answer = { id: 'vsfb_1', status: 'in_progress' };
    const { headers, out } = await headersFor(answer);
    expect(headers).toEqual({ 'openai-poll-after-ms': String(OPENAI_POLL_AFTER_MS) });
    expect(out).toBe(answer);
  });

  it('sets nothing on a finished answer', async () => {
    for (const status of ['completed', 'failed', 'cancelled'])
      expect((await headersFor({ id: 'file_1', status })).headers).toEqual({});
  });
});
