/** The wire shapes the console reads (contract.md; only the fields it shows). */

export interface CursorList<T> {
  object: 'list';
  data: T[];
  pagination: { has_more: boolean; first_cursor: string | null; last_cursor: string | null; total?: number };
}

export interface FileCounts {
  pending: number;
  in_progress: number;
  cancelled: number;
  completed: number;
  failed: number;
  total: number;
}

export interface Store {
  id: string;
  name: string;
  description?: string | null;
  metadata?: unknown;
  file_counts?: FileCounts;
  expires_after?: { anchor: 'last_active_at'; days: number } | null;
  expires_at?: string | null;
  status?: string;
  created_at: string;
  updated_at: string;
  last_active_at?: string | null;
  usage_bytes?: number;
  usage_tokens?: number;
}

export type FileStatus = 'pending' | 'in_progress' | 'cancelled' | 'completed' | 'failed';

export interface Chunk {
  type: string;
  chunk_index: number;
  mime_type?: string;
  text?: string | null;
  /** image_url chunks: the text OCR read; audio and video: the transcription. */
  ocr_text?: string | null;
  transcription?: string | null;
  summary?: string | null;
  offset?: number;
  generated_metadata?: Record<string, unknown> | null;
  model?: string | null;
}

/** The readable text of a chunk of any type (text, OCR text of an image, transcription, summary). */
export const chunkText = (c: Chunk): string => c.text ?? c.ocr_text ?? c.transcription ?? c.summary ?? '';

export interface StoreFile {
  id: string;
  filename?: string;
  metadata?: unknown;
  external_id?: string | null;
  status?: FileStatus;
  last_error?: { message?: string; code?: string } | null;
  store_id: string;
  created_at: string;
  version?: number | null;
  usage_bytes?: number | null;
  usage_tokens?: number | null;
  config?: { parsing_strategy?: string } | null;
  chunks?: Chunk[] | null;
  content_url: string | null;
}

export interface FileObject {
  id: string;
  filename: string;
  bytes: number;
  mime_type: string;
}

export interface ScoredChunk extends Chunk {
  score: number;
  file_id: string;
  filename: string;
  store_id: string;
  metadata?: unknown;
}

export interface Scope {
  method: string;
  resource_type?: string | null;
  resource_id?: string | null;
}

export interface ApiKey {
  id: string;
  name: string;
  redacted_value: string;
  expires_at?: string | null;
  created_at: string;
  updated_at: string;
  last_active_at?: string | null;
  scope?: Scope[] | null;
}

export interface ApiKeyCreated extends ApiKey {
  value: string;
}

export interface ApiKeyList {
  object: 'list';
  data: ApiKey[];
  pagination: { limit: number; offset: number; total: number };
}

/** An activity event of any kind (ingestion, search, agentic_search, grep, qa, completion). */
export interface ActivityEvent {
  id: string;
  created_at: string;
  type: string;
  store_id?: string;
  store_ids?: string[];
  store_file_id?: string;
  filename?: string | null;
  total_time?: string;
  queue_time?: string;
  ingestion_time?: string;
  chunk_count?: number;
  mode?: string;
  query?: string | null;
  pattern?: string | null;
  search_time?: string;
  rounds_executed?: number;
  results?: Array<{ filename?: string | null; score: number }>;
  model?: string;
  completion_time?: string;
}

export interface HistogramBucket {
  bucket_start: string;
  bucket_end: string;
  event_count: number;
  type: string;
}

export interface Period {
  start: string;
  end: string;
}

export interface BillingSummary {
  period: Period;
  cost: {
    net_usage_cost: string;
    gross_usage_cost: string;
    balance_applied: string;
    products: Array<{
      product_name: string;
      gross_usage_cost: string;
      net_usage_cost: string;
      balance_applied: string;
    }>;
  };
  balance: { current_balance?: number; next_effective_balance?: number; next_effective_date?: string | null };
  usages: Record<string, { current: string; limit?: string | null; unit: string }>;
  generated_at: string;
}

export interface CostBucket {
  day: string;
  cost: string;
  cost_per_metric: Record<string, string>;
}

export interface StoreCost {
  store_id: string;
  cost: string;
  cost_per_metric: Record<string, string>;
}
