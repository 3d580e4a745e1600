import { EnvReaders } from './env';

/** Audio and video: the programs that decode them, the speech recogniser, and their bounds. */
export interface MediaConfig {
  /**
   * The speech recogniser (LARDER_TRANSCRIBER): `http` (an OpenAI-compatible `/v1/audio/transcriptions`
   * endpoint), `pocketsphinx` (offline), `none`; unset: `http` when LARDER_TRANSCRIPTION_URL is set,
   * else `pocketsphinx` when its program is installed, else `none`.
   */
  transcriber: 'auto' | 'none' | 'http' | 'pocketsphinx';
  transcriptionUrl: string | null;
  transcriptionApiKey: string | null;
  transcriptionModel: string;
  /** ISO 639-1 code sent as `language`; the endpoint detects it when null. */
  transcriptionLanguage: string | null;
  /** One request (http) or one file (pocketsphinx). */
  transcriptionTimeoutMs: number;
  transcriptionMaxRetries: number;
  /** Longest audio in one request to the endpoint (longer audio goes in pieces). */
  transcriptionMaxRequestSeconds: number;
  pocketsphinxProgram: string;
  pocketsphinxModelDir: string;
  ffmpegProgram: string;
  ffprobeProgram: string;
  /** Longer audio or video fails with `media_too_long` before it is decoded. */
  mediaMaxSeconds: number;
  /** Longest one ffprobe or ffmpeg run. */
  mediaTimeoutMs: number;
  videoMaxFrames: number;
  videoSceneThreshold: number;
}

export function loadMediaConfig(env: NodeJS.ProcessEnv, { int, decimal }: EnvReaders): MediaConfig {
  const NAMES = ['auto', 'none', 'http', 'pocketsphinx'] as const;
  const name = (env.LARDER_TRANSCRIBER ?? '').trim().toLowerCase() || 'auto';
  if (!(NAMES as readonly string[]).includes(name))
    throw new Error(`LARDER_TRANSCRIBER must be one of ${NAMES.join(', ')}, got ${name}`);
  const url = env.LARDER_TRANSCRIPTION_URL || null;
  if (name === 'http' && !url)
    throw new Error(
      'LARDER_TRANSCRIBER=http needs LARDER_TRANSCRIPTION_URL (e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1)',
    );
  if (url !== null) {
    // the URL is not echoed: it may carry a secret in its query
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new Error('LARDER_TRANSCRIPTION_URL must be an http(s) URL such as https://api.openai.com/v1');
    if (new URL(url).username || new URL(url).password)
      throw new Error('LARDER_TRANSCRIPTION_URL must not carry credentials; set LARDER_TRANSCRIPTION_API_KEY instead');
  }
  return {
    transcriber: name as MediaConfig['transcriber'],
    transcriptionUrl: url,
    transcriptionApiKey: env.LARDER_TRANSCRIPTION_API_KEY || null,
    transcriptionModel: env.LARDER_TRANSCRIPTION_MODEL || 'whisper-1',
    transcriptionLanguage: env.LARDER_TRANSCRIPTION_LANGUAGE || null,
    transcriptionTimeoutMs: Math.max(1000, int('LARDER_TRANSCRIPTION_TIMEOUT_MS', 600_000)),
    transcriptionMaxRetries: Math.min(5, int('LARDER_TRANSCRIPTION_MAX_RETRIES', 2)),
    transcriptionMaxRequestSeconds: Math.max(10, int('LARDER_TRANSCRIPTION_MAX_REQUEST_SECONDS', 600)),
    pocketsphinxProgram: env.LARDER_POCKETSPHINX || 'pocketsphinx_continuous',
    pocketsphinxModelDir: env.LARDER_POCKETSPHINX_MODEL_DIR || '/usr/share/pocketsphinx/model/en-us',
    ffmpegProgram: env.LARDER_FFMPEG || 'ffmpeg',
    ffprobeProgram: env.LARDER_FFPROBE || 'ffprobe',
    mediaMaxSeconds: Math.max(1, int('LARDER_MEDIA_MAX_SECONDS', 1800)),
    mediaTimeoutMs: Math.max(1000, int('LARDER_MEDIA_TIMEOUT_MS', 300_000)),
    videoMaxFrames: Math.max(1, int('LARDER_VIDEO_MAX_FRAMES', 20)),
    videoSceneThreshold: decimal('LARDER_VIDEO_SCENE_THRESHOLD', 0.01, 1) ?? 0.3,
  };
}
