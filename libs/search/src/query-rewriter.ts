import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError } from '@larder/kernel';
import { LLM, Llm } from '@larder/ai';
import { SearchAdmission } from './search-admission';
import type { SearchStoresParams } from './queries/search-stores/search-stores.request.dto';

/** `rewrite_query` without a model: refused, never ignored (the caller asked for something this server cannot do). */
export class QueryRewriteNeedsLlmError extends DomainError {
  readonly status = 400;
  readonly type = 'llm_not_configured';
  constructor() {
    super(
      'rewrite_query needs a language model, and none is configured: set LARDER_LLM_URL and LARDER_LLM_MODEL (an OpenAI-compatible chat model), or search without rewrite_query',
    );
  }
}

const REWRITE_PROMPT =
  'Rewrite the user message as one search query for a document search engine over their files: keep every name, number and ' +
  'key term, drop filler words and pleasantries, fix obvious typos. Answer with the query alone, on one line, without quotes.';

/**
 * `rewrite_query` of store search (Mixedbread's `search_options.rewrite_query`, OpenAI's vector store
 * search): the configured model rewrites the query into one search query. The answer names what was
 * asked, the model and its tokens, which the search records on its event and meters.
 */
@Injectable()
export class QueryRewriter {
  constructor(
    private readonly admission: SearchAdmission,
    @Optional() @Inject(LLM) private readonly llm: Llm | null,
  ) {}

  async rewrite(query: string): Promise<{ query: string; rewrite: NonNullable<SearchStoresParams['rewrite']> }> {
    if (!this.llm) throw new QueryRewriteNeedsLlmError();
    const llm = this.llm;
    // the model call gives the search's turn up meanwhile (search-admission.ts)
    const r = await this.admission.outside(() =>
      llm.chat({
        messages: [
          { role: 'system', content: REWRITE_PROMPT },
          { role: 'user', content: query },
        ],
        temperature: 0,
        maxTokens: 256,
      }),
    );
    const rewritten = (r.message.content ?? '')
      .trim()
      .split('\n')[0]
      .replace(/^["'“”]+|["'“”]+$/g, '')
      .trim();
    return {
      query: rewritten || query,
      rewrite: {
        from: query,
        model: r.model,
        usage: {
          prompt_tokens: r.usage.promptTokens,
          completion_tokens: r.usage.completionTokens,
          total_tokens: r.usage.totalTokens,
        },
      },
    };
  }
}
