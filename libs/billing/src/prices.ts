import { Money } from './money';

/** What is metered, with the unit a price applies to. */
export const METRICS = {
  storage: { unit: 'GB-month', product: 'Store', per: 1n },
  ingestion_tokens: { unit: 'tokens', product: 'Store', per: 1_000_000n },
  parsing_tokens: { unit: 'tokens', product: 'Parsing', per: 1_000_000n },
  searches: { unit: 'requests', product: 'Store', per: 1_000n },
  greps: { unit: 'requests', product: 'Store', per: 1_000n },
  agentic_searches: { unit: 'requests', product: 'Agentic search', per: 1_000n },
  qa: { unit: 'requests', product: 'Question answering', per: 1_000n },
  completions: { unit: 'requests', product: 'Completions', per: 1_000n },
  /** Searches and greps a chat completion made: its hosted tool calls, and client tool calls redeemed with a tool ticket. */
  agent_tool_calls: { unit: 'requests', product: 'Completions', per: 1_000n },
  /** Tokens of the configured model (LARDER_LLM_URL) used by answering: priced at 0 unless the operator sets a price. */
  model_prompt_tokens: { unit: 'tokens', product: 'Model usage', per: 1_000_000n },
  model_completion_tokens: { unit: 'tokens', product: 'Model usage', per: 1_000_000n },
  /** Tokens embedded through `POST /v1/embeddings` (the inputs with their prompt). */
  embedding_tokens: { unit: 'tokens', product: 'Embeddings', per: 1_000_000n },
  /** Tokens reranked through `POST /v1/reranking` (the query once per document, plus the documents). */
  rerank_tokens: { unit: 'tokens', product: 'Reranking', per: 1_000_000n },
} as const;
export type Metric = keyof typeof METRICS;

/**
 * Default prices (USD): storage per GB-month, tokens per million, requests per thousand. Operators
 * set their own with LARDER_BILLING_PRICES (a JSON object of decimal strings, any subset).
 */
export const DEFAULT_PRICES: Record<Metric, string> = {
  storage: '0.10',
  ingestion_tokens: '0.02',
  parsing_tokens: '1.00',
  searches: '0.50',
  greps: '0.10',
  agentic_searches: '5.00',
  qa: '4.00',
  completions: '4.00',
  agent_tool_calls: '0.25',
  model_prompt_tokens: '0.00',
  model_completion_tokens: '0.00',
  embedding_tokens: '0.02',
  rerank_tokens: '0.02',
};

export type PriceTable = Record<Metric, Money>;

export function priceTable(json: string | null | undefined): PriceTable {
  const given = json ? (JSON.parse(json) as Record<string, string | number>) : {};
  for (const k of Object.keys(given))
    if (!(k in METRICS))
      throw new Error(`LARDER_BILLING_PRICES: unknown metric ${k} (known: ${Object.keys(METRICS).join(', ')})`);
  return Object.fromEntries(
    (Object.keys(METRICS) as Metric[]).map((m) => [m, Money.parse(String(given[m] ?? DEFAULT_PRICES[m]))]),
  ) as PriceTable;
}
