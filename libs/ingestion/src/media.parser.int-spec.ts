import { findExecutable } from '@larder/ai/local/run-tool';
import { PocketsphinxTranscriber, DEBIAN_POCKETSPHINX_MODEL } from '@larder/ai/local/pocketsphinx.transcriber';
import { TesseractOcr } from '@larder/ai/local/tesseract.ocr';
import { missingSpeechTools, spokenVideo, spokenWav } from '@larder/ai/testing/spoken-media';
import { chunkDocument } from './chunker';
import { MediaTooLongError, UnsupportedMediaError } from './document';
import { parseFile } from './parse';
import { MediaTools } from './media.tools';

const missing = missingSpeechTools();
// eslint-disable-next-line no-console -- say why the suite is skipped
if (missing.length) console.warn(`media parser skipped: ${missing.join(', ')} not installed (.ci/run installs them)`);
const maybe = missing.length ? describe.skip : describe;

jest.setTimeout(120_000);

const SENTENCE = 'my computer needs a new battery. she bought a chocolate cake for the birthday party.';

maybe('audio and video through ffmpeg, PocketSphinx and OCR', () => {
  const tools: MediaTools = {
    ffmpeg: findExecutable('ffmpeg')!,
    ffprobe: findExecutable('ffprobe')!,
    maxSeconds: 600,
    timeoutMs: 60_000,
    maxFrames: 5,
    sceneThreshold: 0.3,
  };
  const transcriber = new PocketsphinxTranscriber({
    program: findExecutable('pocketsphinx_continuous')!,
    modelDir: DEBIAN_POCKETSPHINX_MODEL,
    timeoutMs: 60_000,
  });
  const ocr = new TesseractOcr({ timeoutMs: 60_000, idleMs: 1000 });
  afterAll(() => ocr.close());

  it('a spoken WAV becomes audio_url chunks with its transcript, sample rate and time range', async () => {
    const wav = spokenWav(SENTENCE);
    const doc = await parseFile(wav, 'note.wav', 'application/octet-stream', { transcriber, media: tools });
    expect(doc).toMatchObject({ kind: 'audio', fileType: 'audio/wav', media: { sampleRate: 22050, channels: 1 } });
    const chunks = chunkDocument(doc, 'fast', 'note.wav');
    expect(chunks).toHaveLength(1);
    const [c] = chunks;
    expect(c).toMatchObject({ type: 'audio_url', mimeType: 'audio/wav' });
    expect(c.text).toMatch(/computer .*battery .*birthday party/);
    expect(c.generatedMetadata).toMatchObject({
      type: 'audio',
      file_type: 'audio/wav',
      sample_rate: 22050,
      channels: 1,
      file_extension: 'wav',
      start_seconds: expect.any(Number),
      end_seconds: expect.any(Number),
    });
    const m = c.generatedMetadata as { start_seconds: number; end_seconds: number; total_duration_seconds: number };
    expect(m.start_seconds).toBeLessThan(1);
    expect(m.end_seconds).toBeGreaterThan(3);
    expect(m.end_seconds).toBeLessThanOrEqual(m.total_duration_seconds + 0.5);
  });

  it('a video becomes video_url chunks of its spoken words and the text of its scenes', async () => {
    const mp4 = spokenVideo(SENTENCE, [['QUINCE MARMALADE'], ['ZEPHYR WALTZ JOCKEY']]);
    const doc = await parseFile(mp4, 'clip.mp4', 'video/mp4', { transcriber, media: tools, ocr });
    expect(doc).toMatchObject({ kind: 'video', fileType: 'video/mp4', media: { hasAudio: true } });
    const texts = doc.blocks.map((b) => [b.text, b.startSeconds, b.endSeconds]);
    expect(texts).toEqual(
      expect.arrayContaining([
        ['QUINCE MARMALADE', 0, 3],
        ['ZEPHYR WALTZ JOCKEY', 3, expect.any(Number)],
        [expect.stringMatching(/computer .*battery .*birthday party/), expect.any(Number), expect.any(Number)],
      ]),
    );
    const [c] = chunkDocument(doc, 'fast', 'clip.mp4');
    expect(c).toMatchObject({ type: 'video_url', mimeType: 'video/mp4' });
    expect(c.generatedMetadata).toMatchObject({ type: 'video', width: 960, height: 540, has_audio_stream: true });
  });

  it('a recording past LARDER_MEDIA_MAX_SECONDS is refused before it is decoded', async () => {
    await expect(
      parseFile(spokenWav(SENTENCE), 'note.wav', 'audio/wav', { transcriber, media: { ...tools, maxSeconds: 2 } }),
    ).rejects.toThrow(MediaTooLongError);
  });

  it('without ffmpeg or a recogniser, audio and video are refused with what to install', async () => {
    const wav = spokenWav('hello');
    await expect(parseFile(wav, 'note.wav', 'audio/wav', { media: tools })).rejects.toThrow(UnsupportedMediaError);
    await expect(parseFile(wav, 'note.wav', 'audio/wav', { transcriber })).rejects.toThrow(
      /lacks ffmpeg \(to decode it\); install them \(apt-get install ffmpeg pocketsphinx pocketsphinx-en-us\)/,
    );
  });
});
