import type { Principal } from '@larder/kernel';

/** A stored response (`GET /v1/responses/{id}`), or a page of its input items (`…/input_items`). */
export class GetResponseQuery {
  constructor(
    readonly principal: Principal,
    readonly responseId: string,
    readonly inputItems: {
      after: string | null;
      before: string | null;
      limit: number;
      order: 'asc' | 'desc';
    } | null = null,
  ) {}
}
