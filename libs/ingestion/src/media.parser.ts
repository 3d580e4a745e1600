import { promises as fs } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Ocr, Transcriber } from '@larder/ai';
import { Block, MediaTooLongError, ParsedDocument, ParseError } from './document';
import { decodeAudio, MediaTools, probeMedia, sceneFrames } from './media.tools';

/** Audio formats by extension → MIME type (what ffmpeg decodes). */
export const AUDIO_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  wma: 'audio/x-ms-wma',
  aif: 'audio/aiff',
  aiff: 'audio/aiff',
  amr: 'audio/amr',
  mid: 'audio/midi',
  midi: 'audio/midi',
};
/** Video formats by extension → MIME type. */
export const VIDEO_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  wmv: 'video/x-ms-wmv',
  flv: 'video/x-flv',
  mpeg: 'video/mpeg',
  mpg: 'video/mpeg',
  '3gp': 'video/3gpp',
  ogv: 'video/ogg',
};

/** What audio and video ingestion needs: the programs, a recogniser, and OCR for video frames (optional). */
export interface MediaParsing {
  tools: MediaTools;
  transcriber: Transcriber;
  ocr: Ocr | null;
  signal?: AbortSignal;
}

/**
 * Audio or video: the file is written to a temporary directory of its own (removed afterwards),
 * probed (a file longer than `maxSeconds` is refused before decoding), its first audio track decoded
 * to 16 kHz mono WAV and transcribed into timed segments; of a video, the first frame and one per
 * scene change are read by OCR too, each frame's text lasting until the next. Segments and frame
 * texts are the blocks, in time order, each with its time range; the chunker packs them into
 * `audio_url` or `video_url` chunks of at most a minute.
 */
export async function parseMedia(
  kind: 'audio' | 'video',
  data: Buffer,
  meta: { fileSize: number; extension: string | null; mimeType: string },
  m: MediaParsing,
): Promise<ParsedDocument> {
  const mime = meta.mimeType.split(';')[0].trim().toLowerCase();
  const fileType = mime.startsWith(`${kind}/`)
    ? mime
    : ((kind === 'audio' ? AUDIO_TYPES : VIDEO_TYPES)[meta.extension ?? ''] ??
      (kind === 'audio' ? 'audio/mpeg' : 'video/mp4'));
  const what = `${kind} (${fileType})`;
  const dir = await fs.mkdtemp(join(tmpdir(), 'larder-media-'));
  try {
    const input = join(dir, 'input');
    await fs.writeFile(input, data);
    const probe = await probeMedia(m.tools, input, what, m.signal);
    if (probe.durationSeconds !== null && probe.durationSeconds > m.tools.maxSeconds)
      throw new MediaTooLongError(
        `The ${kind} lasts ${Math.round(probe.durationSeconds)} s, longer than the ${m.tools.maxSeconds} s this server transcribes (LARDER_MEDIA_MAX_SECONDS)`,
      );
    if (kind === 'audio' && !probe.audio) throw new ParseError(`Could not read the ${what}: it has no audio stream`);
    if (!probe.audio && !probe.video)
      throw new ParseError(`Could not read the ${what}: it has neither an audio nor a video stream`);
    const timed: Array<{ start: number; end: number; text: string }> = [];
    if (probe.audio) {
      const wav = join(dir, 'audio.wav');
      await decodeAudio(m.tools, input, wav, what, m.signal);
      for (const s of await m.transcriber.transcribe(wav, m.signal)) if (s.text.trim()) timed.push(s);
    }
    if (kind === 'video' && probe.video && m.ocr) {
      const frames = await sceneFrames(m.tools, input, dir, what, m.signal);
      let previous = '';
      for (const [i, f] of frames.entries()) {
        const image = await fs.readFile(f.file).catch(() => null);
        if (!image) continue;
        const text = (await m.ocr.recognize(image, m.signal)).text.replace(/\s+/g, ' ').trim();
        const end = frames[i + 1]?.seconds ?? probe.durationSeconds ?? f.seconds;
        if (text && text !== previous) timed.push({ start: f.seconds, end: Math.max(f.seconds, end), text });
        previous = text;
      }
    }
    timed.sort((a, b) => a.start - b.start || a.end - b.end);
    const blocks: Block[] = [];
    let offset = 0;
    for (const t of timed) {
      const text = t.text.trim();
      blocks.push({
        text,
        kind: 'paragraph',
        startLine: 0,
        endLine: 0,
        offset,
        startSeconds: round(t.start),
        endSeconds: round(t.end),
      });
      offset += text.length + 2;
    }
    return {
      kind,
      fileType,
      fileExtension: meta.extension,
      fileSize: meta.fileSize,
      language: null,
      blocks,
      media: {
        durationSeconds: probe.durationSeconds === null ? null : round(probe.durationSeconds),
        sampleRate: probe.audio?.sampleRate ?? null,
        channels: probe.audio?.channels ?? null,
        hasAudio: probe.audio !== null,
        video: probe.video,
      },
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const round = (s: number) => Math.round(s * 1000) / 1000;
