import type { Principal } from '@larder/kernel';
import type { RerankParams } from './rerank.request.dto';

export class RerankQuery {
  constructor(
    readonly principal: Principal,
    readonly params: RerankParams,
  ) {}
}
