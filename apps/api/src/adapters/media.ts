import { Transcriber } from '@larder/ai';
import { OpenAiTranscriber } from '@larder/ai/http/openai.transcriber';
import { PocketsphinxTranscriber } from '@larder/ai/local/pocketsphinx.transcriber';
import { findExecutable } from '@larder/ai/local/run-tool';
import type { MediaTools } from '@larder/ingestion';
import { LarderConfig } from '../config';

/**
 * What audio and video ingestion runs with: ffmpeg and ffprobe where both are installed (else null)
 * and the speech recogniser LARDER_TRANSCRIBER names (null for none, or `auto` with neither an
 * endpoint nor pocketsphinx). Without either, audio and video are refused with a message saying
 * what to install.
 */
export function createMedia(config: LarderConfig): { tools: MediaTools | null; transcriber: Transcriber | null } {
  const ffmpeg = findExecutable(config.ffmpegProgram);
  const ffprobe = findExecutable(config.ffprobeProgram);
  const tools =
    ffmpeg && ffprobe
      ? {
          ffmpeg,
          ffprobe,
          maxSeconds: config.mediaMaxSeconds,
          timeoutMs: config.mediaTimeoutMs,
          maxFrames: config.videoMaxFrames,
          sceneThreshold: config.videoSceneThreshold,
        }
      : null;
  const pocketsphinx = findExecutable(config.pocketsphinxProgram);
  const kind =
    config.transcriber === 'auto'
      ? config.transcriptionUrl
        ? 'http'
        : pocketsphinx
          ? 'pocketsphinx'
          : 'none'
      : config.transcriber;
  let transcriber: Transcriber | null = null;
  if (kind === 'http')
    transcriber = new OpenAiTranscriber({
      url: config.transcriptionUrl!,
      apiKey: config.transcriptionApiKey,
      model: config.transcriptionModel,
      language: config.transcriptionLanguage,
      timeoutMs: config.transcriptionTimeoutMs,
      maxRetries: config.transcriptionMaxRetries,
      maxRequestSeconds: config.transcriptionMaxRequestSeconds,
    });
  if (kind === 'pocketsphinx') {
    if (!pocketsphinx)
      throw new Error(
        `LARDER_TRANSCRIBER=pocketsphinx but ${config.pocketsphinxProgram} is not installed (apt-get install pocketsphinx pocketsphinx-en-us)`,
      );
    transcriber = new PocketsphinxTranscriber({
      program: pocketsphinx,
      modelDir: config.pocketsphinxModelDir,
      timeoutMs: config.transcriptionTimeoutMs,
    });
  }
  return { tools, transcriber };
}
