import { LlmError } from '../llm.port';

/**
 * One call's cancellation: its own AbortController, aborted by the caller's signal, by the timer
 * armed for the current wait (first byte, or the next chunk of a stream), or when the call ends.
 */
export class Call {
  readonly deadline: number;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private timedOut: string | null = null;
  private readonly onAbort = () => this.controller.abort(this.external?.reason);

  constructor(
    private readonly external: AbortSignal | undefined,
    timeoutMs: number,
    timeoutMessage: string,
  ) {
    this.deadline = Date.now() + timeoutMs;
    if (external?.aborted) this.controller.abort(external.reason);
    else external?.addEventListener('abort', this.onAbort, { once: true });
    this.arm(timeoutMs, timeoutMessage);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(ms: number, message: string): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timedOut = message;
      this.controller.abort(new LlmError(message, 'timeout'));
    }, ms);
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * What to throw for `err`, which a fetch, body read or wait rejected with: a timeout, the caller's
   * own abort reason, or else `otherwise(err's message)`.
   */
  failure(err: unknown, otherwise: (message: string) => LlmError): Error {
    if (this.timedOut) return new LlmError(this.timedOut, 'timeout');
    if (this.external?.aborted)
      return this.external.reason instanceof Error
        ? this.external.reason
        : new DOMException('The operation was aborted', 'AbortError');
    return otherwise(describe(err));
  }

  /** Throws the caller's abort reason once the caller aborted. */
  throwIfAborted(): void {
    if (this.external?.aborted) throw this.failure(null, () => new LlmError('aborted', 'unavailable'));
  }

  dispose(): void {
    this.disarm();
    this.external?.removeEventListener('abort', this.onAbort);
    if (!this.controller.signal.aborted) this.controller.abort();
  }
}

/** A network error's message with its cause (`fetch failed: connect ECONNREFUSED 127.0.0.1:1`). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  return cause instanceof Error && cause.message ? `${err.message}: ${cause.message}` : err.message;
}
