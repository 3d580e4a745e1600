import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StoredResponses } from '../../responses/stored-responses';
import { GetResponseQuery } from './get-response.query';

export interface InputItemList {
  object: 'list';
  data: Array<Record<string, unknown>>;
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** A stored response as it was answered, or its input items in OpenAI's list shape (`after`/`before` by item id). */
@QueryHandler(GetResponseQuery)
export class GetResponseHandler implements IQueryHandler<GetResponseQuery, Record<string, unknown> | InputItemList> {
  constructor(private readonly stored: StoredResponses) {}

  async execute({
    principal,
    responseId,
    inputItems: page,
  }: GetResponseQuery): Promise<Record<string, unknown> | InputItemList> {
    const found = await this.stored.get(principal, responseId);
    if (!page) return found.response;
    const all = page.order === 'asc' ? found.inputItems : [...found.inputItems].reverse();
    let from = 0;
    let to = all.length;
    if (page.after) from = all.findIndex((i) => i.id === page.after) + 1;
    if (page.before)
      to = Math.max(
        0,
        all.findIndex((i) => i.id === page.before),
      );
    const data = all.slice(from, to).slice(0, page.limit);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
      has_more: from + data.length < to,
    };
  }
}
