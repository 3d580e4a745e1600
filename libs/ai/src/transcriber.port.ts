/**
 * Recognises speech. Adapters: http/openai.transcriber.ts (any OpenAI-compatible
 * `/v1/audio/transcriptions`: whisper.cpp's server, faster-whisper servers, OpenAI) and
 * local/pocketsphinx.transcriber.ts (Debian's `pocketsphinx` with `pocketsphinx-en-us`).
 */
export interface Transcriber {
  /** Engine and model, for logs (`pocketsphinx en-us`, `whisper-1 at http://…`). */
  readonly engine: string;
  /**
   * The speech in a 16 kHz mono 16-bit PCM WAV file (what ingestion decodes every audio track to) as
   * timed segments in order. Rejects with `TranscriptionError` when the engine fails or runs too long.
   */
  transcribe(wavPath: string, signal?: AbortSignal): Promise<TranscriptSegment[]>;
  close(): Promise<void>;
}

/** A stretch of recognised speech; times in seconds from the start of the audio. */
export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
}

export const TRANSCRIBER = Symbol('TRANSCRIBER');

export class TranscriptionError extends Error {
  constructor(
    message: string,
    readonly code: 'transcription_timeout' | 'transcription_failed',
    /** Whether another attempt may succeed (a timeout, a network failure, a 429 or 5xx). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}
