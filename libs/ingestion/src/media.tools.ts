/** ffprobe and ffmpeg as ingestion runs them: what a media file holds, its audio track as WAV, its frames at scene changes. */
import { dirname } from 'path';
import { runTool, ToolError } from '@larder/ai/local/run-tool';
import { TranscriptionError } from '@larder/ai';
import { ParseError } from './document';

/** The external programs and bounds of audio and video ingestion (LARDER_FFMPEG, LARDER_MEDIA_*). */
export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
  /** Longer audio or video is refused (`media_too_long`) before it is decoded. */
  maxSeconds: number;
  /** Longest one ffprobe or ffmpeg run may take. */
  timeoutMs: number;
  /** Frames read by OCR in one video, at most (the first, then one per scene change). */
  maxFrames: number;
  /** How different a frame must be from the one before to start a scene (0–1, ffmpeg's `scene` score). */
  sceneThreshold: number;
}

export interface MediaProbe {
  durationSeconds: number | null;
  audio: { sampleRate: number | null; channels: number | null } | null;
  video: { width: number | null; height: number | null; fps: number | null; frameCount: number | null } | null;
}

type ProbeStream = {
  codec_type?: string;
  sample_rate?: string;
  channels?: number;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
};

const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};
const rate = (v: string | undefined): number | null => {
  const [a, b] = (v ?? '').split('/').map(Number);
  return a > 0 && b > 0 ? Math.round((a / b) * 1000) / 1000 : null;
};

/**
 * A failed tool run as ingestion treats it: past its time retried (`transcription_timeout`), else the
 * file's fault; the temporary directory is left out of the message.
 */
function toolFailure(err: unknown, what: string, input: string): Error {
  if (!(err instanceof ToolError)) return err as Error;
  const message = err.message.split(`${dirname(input)}/`).join('');
  if (err.reason === 'timeout')
    return new TranscriptionError(`Reading the ${what}: ${message}`, 'transcription_timeout', true);
  return new ParseError(`Could not read the ${what}: ${message}`);
}

/** Streams, duration, sample rate, picture size and frame rate (ffprobe's JSON). */
export async function probeMedia(
  tools: MediaTools,
  path: string,
  what: string,
  signal?: AbortSignal,
): Promise<MediaProbe> {
  let out: string;
  try {
    ({ stdout: out } = await runTool(
      tools.ffprobe,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
      { timeoutMs: tools.timeoutMs, maxOutputBytes: 4 * 1024 * 1024, signal },
    ));
  } catch (err) {
    throw toolFailure(err, what, path);
  }
  let parsed: { streams?: ProbeStream[]; format?: { duration?: string } };
  try {
    parsed = JSON.parse(out) as typeof parsed;
  } catch {
    throw new ParseError(`Could not read the ${what}: ffprobe's answer is not JSON`);
  }
  const streams = parsed.streams ?? [];
  const a = streams.find((s) => s.codec_type === 'audio');
  const v = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  return {
    durationSeconds: num(parsed.format?.duration) ?? num(a?.duration) ?? num(v?.duration),
    audio: a ? { sampleRate: num(a.sample_rate), channels: num(a.channels) } : null,
    video: v
      ? {
          width: num(v.width),
          height: num(v.height),
          fps: rate(v.avg_frame_rate) ?? rate(v.r_frame_rate),
          frameCount: num(v.nb_frames),
        }
      : null,
  };
}

/** The first audio track as 16 kHz mono 16-bit PCM WAV (what every transcriber takes). */
export async function decodeAudio(
  tools: MediaTools,
  input: string,
  output: string,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  try {
    await runTool(
      tools.ffmpeg,
      [
        '-nostdin',
        '-v',
        'error',
        '-i',
        input,
        '-map',
        '0:a:0',
        '-vn',
        '-ac',
        '1',
        '-ar',
        '16000',
        '-c:a',
        'pcm_s16le',
        '-map_metadata',
        '-1',
        '-bitexact',
        '-f',
        'wav',
        '-y',
        output,
      ],
      { timeoutMs: tools.timeoutMs, maxOutputBytes: 1024 * 1024, signal },
    );
  } catch (err) {
    throw toolFailure(err, what, input);
  }
}

/**
 * The first frame and every frame that starts a scene (ffmpeg's `select` with the `scene` score), at
 * most `maxFrames`, as PNG files `frame-001.png`… no wider than 1920 pixels, with their times.
 */
export async function sceneFrames(
  tools: MediaTools,
  input: string,
  dir: string,
  what: string,
  signal?: AbortSignal,
): Promise<Array<{ file: string; seconds: number }>> {
  let stderr: string;
  try {
    ({ stderr } = await runTool(
      tools.ffmpeg,
      [
        '-nostdin',
        '-hide_banner',
        '-nostats',
        '-v',
        'info',
        '-i',
        input,
        '-map',
        '0:v:0',
        '-an',
        '-vf',
        `select='eq(n,0)+gt(scene,${tools.sceneThreshold})',scale='min(iw,1920)':-2,showinfo`,
        '-vsync',
        'vfr',
        '-frames:v',
        String(tools.maxFrames),
        '-y',
        `${dir}/frame-%03d.png`,
      ],
      { timeoutMs: tools.timeoutMs, maxOutputBytes: 8 * 1024 * 1024, signal },
    ));
  } catch (err) {
    throw toolFailure(err, what, input);
  }
  const times = [...stderr.matchAll(/Parsed_showinfo.*?\bpts_time:\s*(-?[\d.]+)/g)].map((m) => Number(m[1]));
  return times.slice(0, tools.maxFrames).map((seconds, i) => ({
    file: `${dir}/frame-${String(i + 1).padStart(3, '0')}.png`,
    seconds: Math.max(0, seconds),
  }));
}
