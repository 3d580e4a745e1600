import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@larder/kernel';
import { LLM, Llm, LlmUsage, NO_USAGE, addUsage } from '@larder/ai';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import { chunkKey } from '../ranking';
import { RankedChunk, Retrieval } from '../retrieval';
import { candidateWindow } from '../search.config';
import type { CommonParams } from '../store-query.request.dto';
import type { AgenticOptions } from '../search-options.request.dto';
import { AgenticToolCallRecord, FeedbackPlanner, LlmPlanner, Planner, PlannerView } from './planner';
import { spentSoFar } from '../answering/spent-so-far';
import { SearchAdmission } from '../search-admission';

/** Receives the live trace of a run (the SSE stream of a streamed search). */
export type AgenticTrace = (name: string, data: Record<string, unknown>) => void;

export interface AgenticRun {
  /** The final ranking (before rules' pins, threshold and top_k). */
  results: RankedChunk[];
  roundsExecuted: number;
  toolCalls: AgenticToolCallRecord[];
  usage: LlmUsage;
  model: string;
  rankingStrategy: string;
  startedAt: string;
  queries: string[];
  /** The client hung up: the run stopped there, with what it had found and spent (the planner call under way at Larder's estimate). */
  interrupted?: boolean;
}

/** Weight of the question's own score in the fused score (the rest: the best feedback query's). */
const QUESTION_WEIGHT = 0.6;
/** Without a model, results under this share of the best score are judged not relevant (unless strict_top_k). */
const RELEVANT_SHARE = 0.5;

interface Pooled {
  id: string;
  chunk: RankedChunk;
  /** Score per query index. */
  scores: Map<number, number>;
  round: number;
}

const brief = (c: RankedChunk) => ({
  file_id: c.fileId,
  filename: c.filename,
  chunk_index: c.chunkIndex,
  store_id: c.storeId,
  score: c.score,
});

/**
 * Agentic search (`search_options.agentic`): rounds of planning, searching and judging. Round 1 searches the question;
 * then the planner — the configured model, or pseudo-relevance feedback without one — issues new
 * queries until it finishes, the rounds run out, or (without a model) a round brings nothing new
 * into the top results. Every query's results are pooled and fused into one deduplicated ranking.
 */
@Injectable()
export class AgenticSearch {
  constructor(
    private readonly retrieval: Retrieval,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly admission: SearchAdmission,
    @Optional() @Inject(LLM) private readonly llm: Llm | null,
  ) {}

  /** The planner a run gets: the model's when one is configured, whose calls give the search's turn up meanwhile (search-admission.ts). */
  planner(): Planner {
    const llm = this.llm;
    const admission = this.admission;
    return llm
      ? new LlmPlanner(
          {
            model: llm.model,
            chat: (request) => admission.outside(() => llm.chat(request)),
            stream: (request) => llm.stream(request),
          },
          () => this.ids.uuid().slice(0, 8),
          () => this.clock.now(),
        )
      : new FeedbackPlanner();
  }

  async run(input: {
    stores: StoreRef[];
    question: string;
    params: Pick<CommonParams, 'filter' | 'fileIds' | 'topK'>;
    config: AgenticOptions;
    trace?: AgenticTrace;
    signal?: AbortSignal;
    /** The question's embedding, already under way. */
    questionVector?: Promise<Float32Array | null>;
    /** Searches the question itself (round 1) instead of the stores alone: the web store's joint ranking. */
    searchQuestion?: (
      query: string,
      candidates: number,
      vector?: Promise<Float32Array | null>,
    ) => Promise<RankedChunk[]>;
  }): Promise<AgenticRun> {
    const { stores, question, params, config, signal } = input;
    const trace = input.trace ?? (() => undefined);
    const planner = this.planner();
    const startedAt = this.clock.now().toISOString();
    const perQuery = config.resultsPerQuery ?? Math.min(100, Math.max(params.topK, 20));
    const candidates = candidateWindow(perQuery, this.retrieval.config.candidateFactor);
    const pool = new Map<string, Pooled>();
    const queries: string[] = [];
    const toolCalls: AgenticToolCallRecord[] = [];
    let usage = NO_USAGE;
    let finish: { relevant: string[] | null; rationale: string } | null = null;
    let rounds = 0;
    trace('agentic.started', {
      query: question,
      model: planner.model,
      max_rounds: config.maxRounds,
      queries_per_round: config.queriesPerRound,
      results_per_query: perQuery,
      top_k: params.topK,
    });

    const ranking = (): Pooled[] => {
      const variants = queries.length > 1;
      const fused = [...pool.values()].map((p) => {
        const own = p.scores.get(0) ?? 0;
        let best = 0;
        for (const [q, s] of p.scores) if (q > 0 && s > best) best = s;
        return { p, score: variants ? QUESTION_WEIGHT * own + (1 - QUESTION_WEIGHT) * best : own };
      });
      fused.sort((a, b) => b.score - a.score || a.p.round - b.p.round || a.p.chunk.chunkIndex - b.p.chunk.chunkIndex);
      return fused.map(({ p, score }) => ({ ...p, chunk: { ...p.chunk, score } }));
    };
    const view = (round: number): PlannerView => ({
      question,
      instructions: config.instructions,
      round,
      maxRounds: config.maxRounds,
      queriesPerRound: config.queriesPerRound,
      issued: [...queries],
      ranking: ranking().map((p) => ({
        id: p.id,
        text: p.chunk.text,
        filename: p.chunk.filename,
        score: p.chunk.score,
        round: p.round,
      })),
      topK: params.topK,
    });
    const checkAborted = () => {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    };

    let next = [question];
    /** The planner call under way, if any (for a hang-up's estimate of what it cost). */
    let planning: PlannerView | null = null;
    let interrupted = false;
    try {
      for (let round = 1; round <= config.maxRounds && next.length; round++) {
        checkAborted();
        rounds = round;
        const before = new Set(
          ranking()
            .slice(0, params.topK)
            .map((p) => p.id),
        );
        trace('agentic.round.started', { round, queries: next });
        const issued = next.map((q) => ({ q, index: queries.push(q) - 1 }));
        const found = await Promise.all(
          issued.map(async ({ q, index }) => {
            const t0 = this.clock.now();
            const started = performance.now();
            const id = `search_${index + 1}_${this.ids.uuid().slice(0, 8)}`;
            // a failed search fails the run (nothing is recorded of it), so only answered calls are recorded
            const retrieved =
              index === 0 && input.searchQuestion
                ? await input.searchQuestion(q, candidates, input.questionVector)
                : await this.retrieval.retrieve(
                    stores,
                    q,
                    params,
                    candidates,
                    index === 0 ? input.questionVector : undefined,
                  );
            const results = retrieved.slice(0, perQuery);
            toolCalls.push({
              tool_call_id: id,
              tool_name: 'store_search',
              tool_type: 'datastore',
              started_at: t0.toISOString(),
              duration_ms: performance.now() - started,
              arguments: { query: q.slice(0, 1000), top_k: perQuery },
              result: {
                result_count: results.length,
                results: results.slice(0, 10).map((c) => `${c.fileId}:${c.chunkIndex}`),
              },
              error: null,
            });
            trace('agentic.search.completed', {
              round,
              tool_call_id: id,
              query: q,
              result_count: results.length,
              results: results.slice(0, 10).map(brief),
            });
            return { index, results };
          }),
        );
        for (const { index, results } of found) {
          for (const c of results) {
            const k = chunkKey(c);
            const p = pool.get(k) ?? { id: `r${pool.size + 1}`, chunk: c, scores: new Map<number, number>(), round };
            p.scores.set(index, c.score);
            pool.set(k, p);
          }
        }
        const now = ranking();
        const entered = now.slice(0, params.topK).filter((p) => !before.has(p.id));
        trace('agentic.round.completed', {
          round,
          total_results: pool.size,
          new_in_top_k: entered.length,
          top: now.slice(0, params.topK).map((p) => brief(p.chunk)),
        });
        checkAborted();
        // without a model: a round that brought nothing new into the top results ends the search
        if (round > 1 && !entered.length && planner instanceof FeedbackPlanner) {
          finish = { relevant: null, rationale: 'converged: the last round brought nothing new into the top results' };
          break;
        }
        if (round === config.maxRounds && planner instanceof FeedbackPlanner) break;
        planning = view(round);
        const step = await planner.next(planning, signal);
        planning = null;
        usage = addUsage(usage, step.usage);
        toolCalls.push(...step.calls);
        if (step.calls.length)
          trace('agentic.planned', {
            round,
            model: planner.model,
            queries: step.queries,
            finished: !!step.finish,
            usage: {
              prompt_tokens: step.usage.promptTokens,
              completion_tokens: step.usage.completionTokens,
              total_tokens: step.usage.totalTokens,
            },
          });
        if (step.finish) {
          finish = step.finish;
          break;
        }
        next = step.queries;
      }
    } catch (err) {
      if (!signal?.aborted) throw err;
      // the client hung up: the run ends with what it found and spent until then
      interrupted = true;
      if (planning) usage = addUsage(usage, spentSoFar([{ role: 'user', content: JSON.stringify(planning) }], ''));
    }

    const fused = ranking();
    let results: RankedChunk[];
    if (finish?.relevant) {
      const byId = new Map(fused.map((p) => [p.id, p]));
      const kept = [...new Set(finish.relevant)].map((id) => byId.get(id)).filter((p): p is Pooled => !!p);
      // the model's order; scores keep their fused values, made non-increasing along its order
      let ceiling = 1;
      results = kept.map((p) => {
        ceiling = Math.min(ceiling, p.chunk.score);
        return { ...p.chunk, score: ceiling };
      });
      const keptIds = new Set(kept.map((p) => p.id));
      if (config.strictTopK)
        results.push(
          ...fused
            .filter((p) => !keptIds.has(p.id))
            .map((p) => ({ ...p.chunk, score: Math.min(ceiling, p.chunk.score) })),
        );
    } else {
      const best = fused[0]?.chunk.score ?? 0;
      results = fused.filter((p) => config.strictTopK || p.chunk.score >= RELEVANT_SHARE * best).map((p) => p.chunk);
    }
    const rankingStrategy = finish?.relevant
      ? planner.strategy
      : planner instanceof FeedbackPlanner
        ? planner.strategy
        : `${finish?.rationale ?? 'rounds exhausted'}; results in fused order`;
    if (!interrupted)
      trace('agentic.completed', {
        rounds_executed: rounds,
        queries,
        result_count: Math.min(results.length, params.topK),
        ranking_strategy: rankingStrategy,
      });
    return {
      results,
      roundsExecuted: rounds,
      toolCalls,
      usage,
      model: planner.model,
      rankingStrategy,
      startedAt,
      queries,
      ...(interrupted ? { interrupted } : {}),
    };
  }
}
