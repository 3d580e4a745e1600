import { DomainError } from '@larder/kernel';

/** The model failed to answer (a local runtime error, an endpoint down): 502, never an invented result. */
export class ModelFailedError extends DomainError {
  readonly status = 502;
  constructor(
    readonly type: 'embedding_failed' | 'rerank_failed',
    message: string,
  ) {
    super(message);
  }
}
