import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '@larder/kernel';
import { QueryRewriteNeedsLlmError, SearchVectorStoreHandler } from './search-vector-store.handler';
import { SearchVectorStoreQuery } from './search-vector-store.query';
import type { SearchVectorStoreRequestDto } from './search-vector-store.request.dto';

const principal: Principal = { organizationId: 'o', apiKeyId: 'k', admin: false, operator: false, scope: null };

describe('vector store search without a model', () => {
  it('refuses rewrite_query with a 400 that says what to configure, and searches nothing', async () => {
    const bus = { execute: jest.fn() } as unknown as QueryBus;
    const handler = new SearchVectorStoreHandler(bus, null);
    const input = { query: 'rye', rewrite_query: true } as SearchVectorStoreRequestDto;
    const err = await handler.execute(new SearchVectorStoreQuery(principal, 's', input, null)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryRewriteNeedsLlmError);
    expect(err).toMatchObject({ status: 400, type: 'llm_not_configured', message: expect.stringContaining('LARDER_LLM_URL') });
    expect(bus.execute).not.toHaveBeenCalled();
  });
});
