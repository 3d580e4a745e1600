import Mixedbread, { toFile } from '@mixedbread/sdk';
import { missingSpeechTools, spokenVideo, spokenWav } from '../libs/ai/src/testing/spoken-media';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { SdkTypes } from './support/sdk-types';

jest.setTimeout(240_000);

/** Keys Larder adds beyond the SDK's declarations (documented in docs/api.md). */
const EXTRAS = {
  AudioChunkGeneratedMetadata: ['start_seconds', 'end_seconds'],
  VideoChunkGeneratedMetadata: ['start_seconds', 'end_seconds'],
};
/** Words PocketSphinx's US English model hears right in espeak-ng's Klatt voice (see spokenWav). */
const SENTENCE = 'my computer needs a new battery. she bought a chocolate cake for the birthday party.';

type MediaChunk = {
  type: string;
  mime_type: string;
  transcription?: string;
  sampling_rate?: number;
  audio_url?: { url: string } | null;
  video_url?: { url: string } | null;
  generated_metadata: Record<string, number | string | boolean | null>;
};
type StoreFileWithChunks = {
  id: string;
  status: string;
  last_error: unknown;
  content_url: string;
  chunks?: MediaChunk[];
};

const missing = missingSpeechTools();
// eslint-disable-next-line no-console -- say why the suite is skipped
if (missing.length) console.warn(`media e2e skipped: ${missing.join(', ')} not installed (.ci/run installs them)`);
const maybe = missing.length ? describe.skip : describe;

const upload = async (c: Mixedbread, store: string, name: string, body: Buffer, type: string) =>
  (await c.stores.files.uploadAndPoll({
    storeIdentifier: store,
    file: await toFile(body, name, { type }),
    pollIntervalMs: 200,
    returnChunks: true,
  })) as unknown as StoreFileWithChunks;

maybe('audio and video are transcribed (espeak-ng speech, PocketSphinx) and found by search', () => {
  let t: TestLarder;
  let c: Mixedbread;
  const sdk = new SdkTypes();

  beforeAll(async () => {
    t = await startTestLarder({ env: { LARDER_INGESTION_POLL_MS: '100' } });
    c = t.client((await t.newOrganization('media')).apiKey);
    await c.stores.create({ name: 'recordings' });
  });
  afterAll(async () => t?.close());

  it('a spoken WAV becomes an audio_url chunk with its transcription, sampling rate and time range', async () => {
    const wav = spokenWav(SENTENCE);
    const sf = await upload(c, 'recordings', 'note.wav', wav, 'audio/wav');
    expect([sf.status, sf.last_error]).toEqual(['completed', null]);
    const [chunk] = sf.chunks!;
    expect(chunk).toMatchObject({
      type: 'audio_url',
      mime_type: 'audio/wav',
      sampling_rate: 22050,
      audio_url: { url: sf.content_url },
      generated_metadata: {
        type: 'audio',
        file_type: 'audio/wav',
        file_size: wav.length,
        sample_rate: 22050,
        channels: 1,
        file_extension: 'wav',
      },
    });
    expect(chunk.transcription).toMatch(/computer .*battery .*birthday party/);
    const m = chunk.generated_metadata as Record<string, number>;
    expect(m.start_seconds).toBeGreaterThanOrEqual(0);
    expect(m.start_seconds).toBeLessThan(1);
    expect(m.end_seconds).toBeGreaterThan(3);
    expect(m.end_seconds).toBeLessThanOrEqual(m.total_duration_seconds + 0.5);

    const hits = await c.stores.search({ query: 'computer battery', store_identifiers: ['recordings'], top_k: 3 });
    expect(sdk.check('StoreSearchResponse', hits, EXTRAS)).toEqual([]);
    expect(hits.data[0]).toMatchObject({
      type: 'audio_url',
      filename: 'note.wav',
      file_id: sf.id,
      sampling_rate: 22050,
    });
    expect((hits.data[0] as unknown as MediaChunk).transcription).toMatch(/birthday party/);
  });

  it('a video becomes video_url chunks of its spoken words and the text on its screens', async () => {
    const mp4 = spokenVideo(SENTENCE, [['QUINCE MARMALADE'], ['ZEPHYR WALTZ JOCKEY']]);
    const sf = await upload(c, 'recordings', 'clip.mp4', mp4, 'video/mp4');
    expect([sf.status, sf.last_error]).toEqual(['completed', null]);
    const text = sf.chunks!.map((ch) => ch.transcription).join('\n');
    expect(text).toMatch(/QUINCE MARMALADE/);
    expect(text).toMatch(/ZEPHYR WALTZ JOCKEY/);
    expect(text).toMatch(/birthday party/);
    expect(sf.chunks![0]).toMatchObject({
      type: 'video_url',
      mime_type: 'video/mp4',
      video_url: { url: sf.content_url },
      generated_metadata: { type: 'video', width: 960, height: 540, has_audio_stream: true, file_extension: 'mp4' },
    });

    const spoken = await c.stores.search({ query: 'birthday party', store_identifiers: ['recordings'], top_k: 5 });
    expect(sdk.check('StoreSearchResponse', spoken, EXTRAS)).toEqual([]);
    expect(spoken.data.map((d) => `${d.type}:${d.filename}`).sort()).toEqual([
      'audio_url:note.wav',
      'video_url:clip.mp4',
    ]);
    const shown = await c.stores.search({ query: 'zephyr waltz jockey', store_identifiers: ['recordings'], top_k: 1 });
    expect(shown.data[0]).toMatchObject({ type: 'video_url', filename: 'clip.mp4' });

    const grep = await c.stores.grep({
      pattern: 'QUINCE',
      store_identifiers: ['recordings'],
      targets: ['generated'],
    } as never);
    expect(sdk.check('StoreGrepResponse', grep, EXTRAS)).toEqual([]);
    expect((grep as { data: Array<{ filename: string }> }).data.map((d) => d.filename)).toEqual(['clip.mp4']);
  });

  it('a file that is not audio or video fails for good with a parse error', async () => {
    const song = await upload(
      c,
      'recordings',
      'song.mp3',
      Buffer.from('ID3\u0004\u0000 not really music'),
      'audio/mpeg',
    );
    const clip = await upload(
      c,
      'recordings',
      'clip.mp4',
      Buffer.from('\u0000\u0000\u0000\u0018ftypmp42'),
      'video/mp4',
    );
    expect([song.status, song.last_error]).toEqual([
      'failed',
      {
        code: 'parse_error',
        message: expect.stringMatching(/^Could not read the audio \(audio\/mpeg\): ffprobe failed/),
      },
    ]);
    expect([clip.status, clip.last_error]).toEqual([
      'failed',
      {
        code: 'parse_error',
        message: expect.stringMatching(/^Could not read the video \(video\/mp4\): ffprobe failed/),
      },
    ]);
  });
});

describe('without a speech recogniser audio and video are refused, naming what to install', () => {
  let t: TestLarder;
  let c: Mixedbread;
  beforeAll(async () => {
    t = await startTestLarder({ env: { LARDER_INGESTION_POLL_MS: '100', LARDER_TRANSCRIBER: 'none' } });
    c = t.client((await t.newOrganization('no-speech')).apiKey);
    await c.stores.create({ name: 'refused' });
  });
  afterAll(async () => t?.close());

  it('fails them with audio_not_supported and video_not_supported', async () => {
    const song = await upload(c, 'refused', 'song.mp3', Buffer.from('ID3\u0004\u0000 not really music'), 'audio/mpeg');
    const clip = await upload(c, 'refused', 'clip.mp4', Buffer.from('\u0000\u0000\u0000\u0018ftypmp42'), 'video/mp4');
    // a machine without ffmpeg is told to install it as well
    const install =
      /lacks (ffmpeg \(to decode it\) and )?a speech recogniser \(pocketsphinx with pocketsphinx-en-us, or LARDER_TRANSCRIPTION_URL .*apt-get install ffmpeg pocketsphinx pocketsphinx-en-us/;
    expect([song.status, song.last_error]).toEqual([
      'failed',
      { code: 'audio_not_supported', message: expect.stringMatching(install) },
    ]);
    expect([clip.status, clip.last_error]).toEqual([
      'failed',
      { code: 'video_not_supported', message: expect.stringMatching(install) },
    ]);
  });
});
