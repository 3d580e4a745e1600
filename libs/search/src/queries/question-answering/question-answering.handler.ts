import { Inject, Optional } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { toScoredChunkResponse } from '@larder/chunk-index';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@larder/kernel';
import { cosineSimilarity as cosine, EMBEDDER, Embedder, LLM, Llm, LlmUsage, NO_USAGE } from '@larder/ai';
import type { AgenticToolCallRecorded } from '../../events';
import { Retrieval, RankedChunk } from '../../retrieval';
import { candidateWindow } from '../../search.config';
import { StoreAccess } from '../../store-access';
import { SearchActivity } from '../../search-activity';
import { SearchAdmission } from '../../search-admission';
import { applyRewrites, SearchRulePins } from '../../rules/search-rule-effects';
import { AgenticSearch } from '../../agentic/agentic-search';
import { runAgentic } from '../../agentic/agentic-request';
import { extractiveAnswer } from '../../answering/extractive-answer';
import { llmAnswer } from '../../answering/llm-answer';
import { WebRetrieval, WEB_SEARCH_HEADER } from '../../web/web-retrieval';
import { QuestionAnsweringQuery } from './question-answering.query';

/** The `model` of an answer written without a language model. */
export const EXTRACTIVE_MODEL = 'larder-extractive';

export type QuestionAnsweringResponse = {
  answer: string;
  sources: ReturnType<typeof toScoredChunkResponse>[];
  /** The model that wrote the answer (`larder-extractive`: the best sentences of the sources, no model). */
  model: string;
};

/**
 * Question answering: the passages a search (or an agentic search) retrieves are the sources;
 * the configured model answers from them, citing them as `<cite i="N"/>` (N indexes `sources`);
 * without a model the answer is extractive — the sentences of the sources that best answer the
 * question, each cited. One `qa` activity event per request; its retrieval is not a separate search.
 */
@QueryHandler(QuestionAnsweringQuery)
export class QuestionAnsweringHandler implements IQueryHandler<QuestionAnsweringQuery, QuestionAnsweringResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly retrieval: Retrieval,
    private readonly agentic: AgenticSearch,
    private readonly pins: SearchRulePins,
    private readonly activity: SearchActivity,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Optional() @Inject(LLM) private readonly llm: Llm | null,
    private readonly webStore: WebRetrieval,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly admission: SearchAdmission,
  ) {}

  /** In its turn (search-admission.ts): a full queue is a 503; the model's answer is written outside it. */
  execute(query: QuestionAnsweringQuery): Promise<QuestionAnsweringResponse> {
    return this.admission.run(() => this.answer(query), query.signal);
  }

  private async answer({
    principal: p,
    params,
    live,
    signal,
    setHeader,
  }: QuestionAnsweringQuery): Promise<QuestionAnsweringResponse> {
    const t0 = performance.now();
    const startedAt = this.clock.now();
    const { query, options } = params;
    // the run's steps, for its record (and the trace an export sends): retrieval, then the answer's model turn
    const toolCalls: AgenticToolCallRecorded[] = [];
    const prefetched = this.retrieval.embedQuery(query);
    // the web store (mixedbread/web): its providers are asked beside the store lookups; web results are sources like store chunks
    const split = WebRetrieval.split(params.storeIdentifiers);
    const pendingWeb = split.web ? this.webStore.search(query, !split.stores.length, signal) : null;
    pendingWeb?.catch(() => undefined);
    const { stores, rules } = await this.access.resolveForSearch(
      p,
      params.storeIdentifiers,
      options.applySearchRules ? query : null,
    );
    const web = pendingWeb ? await pendingWeb : null;
    if (web) setHeader?.(WEB_SEARCH_HEADER, this.webStore.header(web));
    live?.start();
    const { effective, pins } = applyRewrites(query, rules);

    let results: RankedChunk[];
    let usage: LlmUsage = NO_USAGE;
    if (options.agentic) {
      const run = await runAgentic(this.agentic, this.webStore, options.agentic, {
        stores,
        query,
        effective,
        prefetched,
        params,
        live,
        signal,
        web,
      });
      results = run.results;
      usage = run.usage;
      toolCalls.push(...run.toolCalls);
    } else {
      const candidates = candidateWindow(params.topK, this.retrieval.config.candidateFactor);
      const vector = effective === query ? prefetched : undefined;
      const searchStarted = this.clock.now();
      const s0 = performance.now();
      results = web
        ? await this.webStore.retrieve(stores, effective, params, candidates, web, vector)
        : await this.retrieval.retrieve(stores, effective, params, candidates, vector);
      results = (await this.retrieval.rerank(effective, results, web ? this.webStore.rerankOptions(options) : options))
        .results;
      toolCalls.push({
        tool_call_id: `search_1_${this.ids.uuid().slice(0, 8)}`,
        tool_name: 'store_search',
        tool_type: 'datastore',
        started_at: searchStarted.toISOString(),
        duration_ms: performance.now() - s0,
        arguments: { query: effective.slice(0, 1000), top_k: params.topK },
        result: {
          result_count: results.length,
          results: results.slice(0, 10).map((c) => `${c.fileId}:${c.chunkIndex}`),
        },
        error: null,
      });
    }
    results = await this.pins.pin(results, pins, stores, params);
    results = results.filter((c) => c.score >= options.scoreThreshold).slice(0, params.topK);
    const sources = results.map((c) => toScoredChunkResponse(c, options.returnMetadata));
    live?.send('qa.sources', { type: 'qa.sources', sources });

    let answer: string;
    let cited: number[];
    let model: string;
    if (this.llm) {
      const generationStarted = this.clock.now();
      const g0 = performance.now();
      const llm = this.llm;
      const out = await this.admission.outside(() =>
        llmAnswer(llm, query, results, {
          cite: params.cite,
          instructions: params.instructions,
          signal,
          onDelta: live ? (delta) => live.send('qa.answer.delta', { type: 'qa.answer.delta', delta }) : undefined,
        }),
      );
      ({ answer, cited, model } = out);
      toolCalls.push({
        tool_call_id: `gen_answer_${this.ids.uuid().slice(0, 8)}`,
        tool_name: 'generation',
        tool_type: 'extension',
        started_at: generationStarted.toISOString(),
        duration_ms: performance.now() - g0,
        arguments: { model: out.model, messages: out.messages },
        result: {
          finish_reason: out.finishReason,
          usage: { prompt_tokens: out.usage.promptTokens, completion_tokens: out.usage.completionTokens },
        },
        error: null,
      });
      usage = {
        promptTokens: usage.promptTokens + out.usage.promptTokens,
        completionTokens: usage.completionTokens + out.usage.completionTokens,
        totalTokens: usage.totalTokens + out.usage.totalTokens,
      };
    } else if (signal?.aborted) {
      // the client hung up after the sources: the retrieval is recorded, with no answer
      ({ answer, cited, model } = { answer: '', cited: [], model: EXTRACTIVE_MODEL });
    } else {
      const out = await extractiveAnswer(query, results, {
        cite: params.cite,
        similarity: (q, texts) => this.similarity(q, texts, prefetched),
      });
      ({ answer, cited } = out);
      model = EXTRACTIVE_MODEL;
      // one delta per cited sentence, so a streaming reader sees the same shape as with a model
      if (live)
        for (const piece of answer.match(/[^]*?(?:<cite i="\d+"\/>|$)\s*/g)?.filter(Boolean) ?? [answer])
          live.send('qa.answer.delta', { type: 'qa.answer.delta', delta: piece });
    }

    this.activity.record(p.organizationId, {
      type: 'StoreQuestionAnswered',
      data: {
        ...this.activity.common(p, stores, params, results, t0),
        query,
        instructions: params.instructions,
        model,
        mode: this.llm ? 'llm' : 'extractive',
        answer: answer.slice(0, 4000),
        citations: cited,
        agentic: !!options.agentic,
        tokenUsage: {
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          total_tokens: usage.totalTokens,
        },
        ...(web ? { web: this.webStore.activity(web) } : {}),
        startedAt: startedAt.toISOString(),
        toolCalls: toolCalls.slice(0, 100),
      },
    });
    // a client that hung up is recorded (and billed) for what it got, then the request ends
    if (signal?.aborted) throw signal.reason;
    return { answer, sources, model };
  }

  /** Cosine similarity of the question to each candidate sentence, with the search embedder. */
  private async similarity(
    question: string,
    texts: string[],
    questionVector: Promise<Float32Array | null>,
  ): Promise<number[] | null> {
    const q = await questionVector;
    if (!q) return null;
    const vectors = await this.embedder.embed(texts, 'document');
    return texts.map((_, i) => (i < vectors.length ? cosine(q, vectors[i]) : 0));
  }
}
