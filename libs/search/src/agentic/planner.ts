import type { AgenticToolCallRecorded } from '../events';
import { addUsage, Llm, LlmMessage, LlmTool, LlmUsage, NO_USAGE } from '@larder/ai';
import { contentWords, sentences, contentTerms } from '../answering/text';
import { feedbackTerms } from './feedback';

export type AgenticToolCallRecord = AgenticToolCallRecorded;

/** What the planner sees after a round: the question and the fused ranking so far. */
export interface PlannerView {
  question: string;
  instructions: string | null;
  /** The round just searched (1-based) and the last one allowed. */
  round: number;
  maxRounds: number;
  queriesPerRound: number;
  issued: string[];
  /** The fused ranking of everything retrieved so far, best first. */
  ranking: Array<{ id: string; text: string; filename: string; score: number; round: number }>;
  topK: number;
}

export interface PlanStep {
  /** The next round's queries (ignored when `finish` is set). */
  queries: string[];
  /** The planner is done: the results it judged relevant, best first (null: judged by score), and why. */
  finish: { relevant: string[] | null; rationale: string } | null;
  usage: LlmUsage;
  /** Model calls the step made (recorded with the search's tool calls). */
  calls: AgenticToolCallRecord[];
}

/** Decides each round's queries and when to stop; an LLM or the deterministic feedback planner. */
export interface Planner {
  /** Named in the response's trace events and the activity event (`larder-feedback-planner` without a model). */
  readonly model: string;
  /** How the final ranking is chosen (the event's `ranking_strategy`). */
  readonly strategy: string;
  next(view: PlannerView, signal?: AbortSignal): Promise<PlanStep>;
}

export const DETERMINISTIC_PLANNER_MODEL = 'larder-feedback-planner';

/** Top results the feedback terms are taken from. */
const FEEDBACK_DOCS = 5;

const norm = (q: string) => q.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * Without a model: each round's queries come from pseudo-relevance feedback on the ranking so far —
 * the question with the top results' characteristic terms, those terms alone, the question's key
 * words with the next terms, and the top result's sentence closest to the question (a query by
 * example). It stops when no new query can be formed; the engine also stops it when a round brings
 * nothing new into the top results.
 */
export class FeedbackPlanner implements Planner {
  readonly model = DETERMINISTIC_PLANNER_MODEL;
  readonly strategy =
    'Interpolated fusion: 0.6 × the question’s own hybrid score + 0.4 × the best score of a feedback query (RM3-style); results under half the best score are judged not relevant.';

  async next(view: PlannerView): Promise<PlanStep> {
    const terms = feedbackTerms(view.question, view.ranking.slice(0, FEEDBACK_DOCS), 9);
    const keywords = contentWords(view.question);
    const candidates: string[] = [];
    if (terms.length) {
      candidates.push(`${view.question} ${terms.slice(0, 3).join(' ')}`);
      candidates.push(terms.slice(0, 6).join(' '));
      if (keywords.length) candidates.push(`${keywords.join(' ')} ${terms.slice(3, 6).join(' ')}`.trim());
    }
    const example = bestSentence(view.question, view.ranking[0]?.text ?? '');
    if (example) candidates.push(example);
    if (terms.length > 6) candidates.push(`${keywords.join(' ')} ${terms.slice(6, 9).join(' ')}`.trim());
    const issued = new Set(view.issued.map(norm));
    const queries: string[] = [];
    for (const q of candidates) {
      if (queries.length >= view.queriesPerRound) break;
      if (q && !issued.has(norm(q)) && !queries.some((x) => norm(x) === norm(q))) queries.push(q);
    }
    return {
      queries,
      finish: queries.length ? null : { relevant: null, rationale: 'no new query could be formed from the results' },
      usage: NO_USAGE,
      calls: [],
    };
  }
}

/** The sentence of a passage that shares the most of the question's key words (at least one). */
function bestSentence(question: string, text: string): string | null {
  const asked = new Set(contentTerms(question));
  let best: { s: string; n: number } | null = null;
  for (const { text: s } of sentences(text)) {
    if (s.length < 20 || s.length > 400) continue;
    const n = new Set(contentTerms(s).filter((t) => asked.has(t))).size;
    if (n && (!best || n > best.n)) best = { s, n };
  }
  return best?.s ?? null;
}

const SEARCH_TOOL = (max: number): LlmTool => ({
  type: 'function',
  function: {
    name: 'search',
    description: `Search the stores. Give 1 to ${max} queries that together find passages answering the question (different wordings, sub-questions, likely terms).`,
    parameters: {
      type: 'object',
      properties: { queries: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: max } },
      required: ['queries'],
    },
  },
});

const FINISH_TOOL: LlmTool = {
  type: 'function',
  function: {
    name: 'finish',
    description:
      'Stop searching. List the ids of the results that are relevant to the question, most relevant first, and say briefly how you ranked them.',
    parameters: {
      type: 'object',
      properties: { relevant: { type: 'array', items: { type: 'string' } }, rationale: { type: 'string' } },
      required: ['relevant', 'rationale'],
    },
  },
};

/** Results shown to the model per round, and the characters of each. */
const SHOWN_RESULTS = 20;
const SNIPPET_CHARS = 400;

/**
 * With a model: a tool-calling loop. After each round the model sees the ranking so far (ids,
 * files, snippets) and calls `search` with the next queries or `finish` with the relevant ids in its
 * order; in the last round it must finish.
 */
export class LlmPlanner implements Planner {
  readonly strategy = 'The model judged relevance and ordered the results it kept (finish tool).';
  private readonly messages: LlmMessage[] = [];
  private calls = 0;

  constructor(
    private readonly llm: Llm,
    private readonly newId: () => string,
    private readonly now: () => Date,
  ) {}

  get model(): string {
    return this.llm.model;
  }

  async next(view: PlannerView, signal?: AbortSignal): Promise<PlanStep> {
    if (!this.messages.length) {
      const rules = [
        'You are a search agent. You find the passages in a document store that answer a question.',
        'You are shown the results of the searches so far. Either call `search` with better queries (other wordings, sub-questions, terms the results use) or, when the results answer the question or more searching will not help, call `finish` with the ids of the relevant results, most relevant first.',
      ];
      if (view.instructions)
        rules.push(`Additional instructions (follow them unless they conflict with the above): ${view.instructions}`);
      this.messages.push(
        { role: 'system', content: rules.join('\n') },
        { role: 'user', content: `Question: ${view.question}` },
      );
    }
    const last = view.round >= view.maxRounds;
    this.messages.push({ role: 'user', content: describe(view, last) });
    const t0 = this.now();
    const started = performance.now();
    const response = await this.llm.chat({
      messages: this.messages,
      tools: last ? [FINISH_TOOL] : [SEARCH_TOOL(view.queriesPerRound), FINISH_TOOL],
      toolChoice: last ? { type: 'function', function: { name: 'finish' } } : 'required',
      temperature: 0,
      signal,
    });
    const call = response.message.tool_calls?.[0];
    this.messages.push({ role: 'assistant', content: response.message.content, tool_calls: call ? [call] : undefined });
    const record: AgenticToolCallRecord = {
      tool_call_id: `gen_${++this.calls}_${this.newId()}`,
      tool_name: 'generation',
      tool_type: 'extension',
      started_at: t0.toISOString(),
      duration_ms: performance.now() - started,
      arguments: { round: view.round, model: response.model },
      result: {
        tool: call?.function.name ?? null,
        usage: { prompt_tokens: response.usage.promptTokens, completion_tokens: response.usage.completionTokens },
      },
      error: null,
    };
    const base = { usage: addUsage(NO_USAGE, response.usage), calls: [record] };
    const args = parseArgs(call?.function.arguments);
    if (call)
      this.messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: call.function.name === 'search' ? 'Searching; the results follow.' : 'Done.',
      });
    if (call?.function.name === 'search') {
      const queries = Array.isArray(args.queries)
        ? args.queries.filter((q): q is string => typeof q === 'string' && !!q.trim()).slice(0, view.queriesPerRound)
        : [];
      if (queries.length) return { ...base, queries, finish: null };
    }
    if (call?.function.name === 'finish') {
      const relevant = Array.isArray(args.relevant)
        ? args.relevant.filter((x): x is string => typeof x === 'string')
        : null;
      return {
        ...base,
        queries: [],
        finish: { relevant, rationale: typeof args.rationale === 'string' ? args.rationale.slice(0, 2000) : '' },
      };
    }
    // a model that answered in text, or called search without queries: stop with the fused ranking
    return {
      ...base,
      queries: [],
      finish: { relevant: null, rationale: 'the model stopped without a ranking; results are in fused order' },
    };
  }
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function describe(view: PlannerView, last: boolean): string {
  const lines = view.ranking
    .slice(0, SHOWN_RESULTS)
    .map(
      (r) =>
        `[${r.id}] ${r.filename} (score ${r.score.toFixed(3)}): ${r.text.replace(/\s+/g, ' ').slice(0, SNIPPET_CHARS)}`,
    );
  return [
    `Round ${view.round} of ${view.maxRounds}. Queries so far: ${view.issued.map((q) => JSON.stringify(q)).join(', ')}.`,
    lines.length ? `Results so far, best first:\n${lines.join('\n')}` : 'No results so far.',
    last
      ? 'This was the last round: call finish.'
      : `Call search with up to ${view.queriesPerRound} new queries, or finish.`,
  ].join('\n\n');
}
