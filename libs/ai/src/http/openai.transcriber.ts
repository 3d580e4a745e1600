import type * as http from 'http';
import { randomBytes } from 'crypto';
import { promises as fs } from 'fs';
import { JsonAnswer, RetryPolicy, keepAliveAgent, postJson } from '@larder/outbound';
import { Transcriber, TranscriptionError, TranscriptSegment } from '../transcriber.port';

export interface OpenAiTranscriberOptions {
  /**
   * The endpoint, or its base up to the version: `https://api.openai.com/v1` (→ `/v1/audio/transcriptions`).
   * A URL that already ends in `/audio/transcriptions` or `/inference` (whisper.cpp's server) is used as it is.
   */
  url: string;
  apiKey: string | null;
  /** `whisper-1`, or what the server expects (faster-whisper servers name a model; whisper.cpp ignores it). */
  model: string;
  /** Sent as `language` (ISO 639-1) when set; the server detects it otherwise. */
  language?: string | null;
  /** Per attempt. */
  timeoutMs?: number;
  /** Retries of 408/429/5xx and network failures. */
  maxRetries?: number;
  /** Longest audio sent in one request: longer audio goes in consecutive pieces (OpenAI takes at most 25 MB, about 13 minutes of 16 kHz WAV). */
  maxRequestSeconds?: number;
  /** Largest answer read. */
  maxBytes?: number;
  retryBaseMs?: number;
}

/** 16 kHz, mono, 16-bit: the format every audio track is decoded to before transcription. */
const BYTES_PER_SECOND = 16_000 * 2;

/**
 * An OpenAI-compatible speech-to-text endpoint: `POST …/audio/transcriptions` as
 * `multipart/form-data` with `file` (a WAV), `model` and `response_format=verbose_json`, answered
 * `{text, segments: [{start, end, text}]}`. An answer without segments (a server that ignores
 * `verbose_json`) becomes one segment over the audio sent. Audio longer than `maxRequestSeconds` is
 * sent in pieces whose segment times are shifted to the whole file's. The key goes in the
 * Authorization header and nowhere else: it is never part of an error message.
 */
export class OpenAiTranscriber implements Transcriber {
  readonly engine: string;
  readonly endpoint: string;
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly maxRequestSeconds: number;
  private readonly maxBytes: number;
  /** Kept out of the object's enumerable fields (logs, JSON). */
  readonly #apiKey: string | null;

  private readonly model: string;
  private readonly language: string | null;

  constructor(options: OpenAiTranscriberOptions) {
    this.#apiKey = options.apiKey || null;
    this.model = options.model;
    this.language = options.language || null;
    const base = options.url.replace(/\/+$/, '');
    this.url = new URL(
      /\/(audio\/transcriptions|inference)$/.test(new URL(base).pathname) ? base : `${base}/audio/transcriptions`,
    );
    this.endpoint = `${this.url.origin}${this.url.pathname}`; // never the query, which may carry a secret
    this.engine = `${options.model} at ${this.endpoint}`;
    this.agent = keepAliveAgent(this.url);
    this.timeoutMs = Math.max(1, options.timeoutMs ?? 300_000);
    this.maxRequestSeconds = Math.max(1, options.maxRequestSeconds ?? 600);
    this.maxBytes = Math.max(1024, options.maxBytes ?? 16 * 1024 * 1024);
    this.retry = new RetryPolicy({
      maxRetries: options.maxRetries ?? 2,
      baseMs: options.retryBaseMs ?? 500,
      maxDelayMs: 10_000,
    });
  }

  async transcribe(wavPath: string, signal?: AbortSignal): Promise<TranscriptSegment[]> {
    const pcm = pcmOf(await fs.readFile(wavPath));
    const out: TranscriptSegment[] = [];
    const step = this.maxRequestSeconds * BYTES_PER_SECOND;
    for (let at = 0; at < pcm.length; at += step) {
      signal?.throwIfAborted();
      const piece = pcm.subarray(at, at + step);
      const offset = at / BYTES_PER_SECOND;
      for (const s of await this.request(wav(piece), piece.length / BYTES_PER_SECOND, signal))
        out.push({ start: s.start + offset, end: s.end + offset, text: s.text });
    }
    return out;
  }

  private async request(file: Buffer, seconds: number, signal?: AbortSignal): Promise<TranscriptSegment[]> {
    const boundary = `----larder${randomBytes(12).toString('hex')}`;
    const fields: Array<[string, string]> = [
      ['model', this.model],
      ['response_format', 'verbose_json'],
      ['timestamp_granularities[]', 'segment'],
      ...(this.language ? [['language', this.language] as [string, string]] : []),
    ];
    const body = Buffer.concat([
      ...fields.map(([k, v]) =>
        Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`, 'utf8'),
      ),
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="audio.wav"\r\ncontent-type: audio/wav\r\n\r\n`,
      ),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const headers: Record<string, string> = {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      accept: 'application/json',
      ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}),
    };
    return this.retry.run<TranscriptSegment[]>(
      async () => {
        let res: JsonAnswer;
        try {
          res = await postJson(this.url, headers, body, this.agent, this.timeoutMs, this.maxBytes);
        } catch (err) {
          const message = this.excerpt((err as Error).message);
          return {
            retry: new TranscriptionError(
              `transcription endpoint ${this.endpoint} unreachable: ${message}`,
              /no answer within/.test(message) ? 'transcription_timeout' : 'transcription_failed',
              true,
            ),
          };
        }
        if (res.status >= 200 && res.status < 300) return { value: this.parse(res.body, seconds) };
        const retryable = this.retry.retries(res.status);
        const error = new TranscriptionError(
          `transcription endpoint ${this.endpoint} answered ${res.status}: ${this.excerpt(res.body)}`,
          'transcription_failed',
          retryable,
        );
        if (!retryable) throw error;
        return { retry: error, retryAfterMs: res.retryAfterMs };
      },
      { signal },
    );
  }

  private parse(text: string, seconds: number): TranscriptSegment[] {
    let parsed: { text?: unknown; segments?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new TranscriptionError(
        `transcription endpoint ${this.endpoint} returned invalid JSON`,
        'transcription_failed',
        true,
      );
    }
    if (Array.isArray(parsed?.segments)) {
      const out: TranscriptSegment[] = [];
      for (const s of parsed.segments as Array<Record<string, unknown>>) {
        if (typeof s?.text !== 'string' || typeof s.start !== 'number' || typeof s.end !== 'number')
          throw new TranscriptionError(
            `transcription endpoint ${this.endpoint} returned a segment without numeric start, end and text`,
            'transcription_failed',
            false,
          );
        if (s.text.trim()) out.push({ start: s.start, end: Math.max(s.start, s.end), text: s.text.trim() });
      }
      return out;
    }
    if (typeof parsed?.text !== 'string')
      throw new TranscriptionError(
        `transcription endpoint ${this.endpoint} returned no text`,
        'transcription_failed',
        false,
      );
    return parsed.text.trim() ? [{ start: 0, end: seconds, text: parsed.text.trim() }] : [];
  }

  /** An endpoint's words in an error message: cut short, the key never repeated. */
  private excerpt(s: string): string {
    const cut = s.replace(/\s+/g, ' ').slice(0, 300);
    const key = this.#apiKey;
    return key ? cut.split(key).join('***') : cut;
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

/** The samples of a 16 kHz mono 16-bit WAV (its `data` chunk). */
function pcmOf(file: Buffer): Buffer {
  if (file.length < 12 || file.toString('latin1', 0, 4) !== 'RIFF' || file.toString('latin1', 8, 12) !== 'WAVE')
    throw new TranscriptionError('the audio to transcribe is not a WAV file', 'transcription_failed', false);
  for (let at = 12; at + 8 <= file.length;) {
    const size = file.readUInt32LE(at + 4);
    if (file.toString('latin1', at, at + 4) === 'data')
      return file.subarray(at + 8, Math.min(file.length, at + 8 + size));
    at += 8 + size + (size % 2);
  }
  throw new TranscriptionError('the WAV file to transcribe has no data chunk', 'transcription_failed', false);
}

/** A 16 kHz mono 16-bit PCM WAV of `pcm`. */
function wav(pcm: Buffer): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(16_000, 24);
  h.writeUInt32LE(BYTES_PER_SECOND, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}
