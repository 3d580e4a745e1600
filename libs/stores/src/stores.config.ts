import type { MediaTools } from '@larder/ingestion';

/** Settings of the stores context (from the app's configuration). */
export interface StoresConfig {
  /** Whether this process runs the ingestion worker and the expiry sweeper. */
  runWorker: boolean;
  ingestionConcurrency: number;
  /** How long a worker holds a file before another may take it over (also the per-attempt time limit). */
  /** A worker's hold on a file, renewed every third of it while work runs: a crashed worker's file is taken over after it. */
  leaseMs: number;
  /** The longest one ingestion attempt may run. */
  attemptTimeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  pollMs: number;
  signingSecret: string;
  publicUrl: string | null;
  contentUrlTtlSeconds: number;
  expirySweepMs: number;
  /** Images with more pixels are refused (`image_too_large`) before OCR. */
  ocrMaxPixels: number;
  /** The memory a PDF or DOCX parse may take (LARDER_PARSE_MAX_INFLATED_MB, LARDER_PARSE_MAX_HEAP_MB). */
  parseLimits: { maxInflatedBytes: number; maxHeapMb: number };
  /** ffmpeg and the bounds of audio and video ingestion; null without ffmpeg (they are then refused). */
  media: MediaTools | null;
}
export const STORES_CONFIG = Symbol('STORES_CONFIG');
