import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { TranscriptionError } from '../transcriber.port';
import { startTranscriptionDouble, TranscriptionDouble } from '../testing/transcription-double';
import { OpenAiTranscriber, OpenAiTranscriberOptions } from './openai.transcriber';

const SCRIPT = ['Pickles ferment in brine.', 'Quince jelly sets overnight.'];

/** A 16 kHz mono 16-bit WAV of `seconds` of silence, with a LIST chunk before `data` as ffmpeg writes without -bitexact. */
function silentWav(seconds: number): Buffer {
  const pcm = Buffer.alloc(Math.round(seconds * 16_000) * 2);
  const list = Buffer.concat([Buffer.from('LIST', 'latin1'), Buffer.from([4, 0, 0, 0]), Buffer.from('INFO', 'latin1')]);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(1, 10);
  fmt.writeUInt32LE(16_000, 12);
  fmt.writeUInt32LE(32_000, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(16, 22);
  const data = Buffer.alloc(8);
  data.write('data', 0, 'latin1');
  data.writeUInt32LE(pcm.length, 4);
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), fmt, list, data, pcm]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

describe('OpenAiTranscriber against a local double of the OpenAI /v1/audio/transcriptions wire format', () => {
  let double: TranscriptionDouble;
  let dir: string;
  const made: OpenAiTranscriber[] = [];
  beforeAll(async () => {
    double = await startTranscriptionDouble({ script: SCRIPT, apiKey: 'sk-speech-secret', echoKey: true });
    dir = mkdtempSync(join(tmpdir(), 'larder-transcriber-'));
  });
  afterAll(async () => {
    await Promise.all(made.map((t) => t.close()));
    await double.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const make = (o: Partial<OpenAiTranscriberOptions> = {}) => {
    const t = new OpenAiTranscriber({
      url: double.baseUrl,
      apiKey: 'sk-speech-secret',
      model: 'whisper-1',
      retryBaseMs: 0,
      ...o,
    });
    made.push(t);
    return t;
  };
  const wavFile = (seconds: number) => {
    const path = join(dir, `${seconds}.wav`);
    writeFileSync(path, silentWav(seconds));
    return path;
  };

  it('posts the WAV as multipart with model and verbose_json, and answers the timed segments', async () => {
    const before = double.requests.length;
    const segments = await make({ language: 'en' }).transcribe(wavFile(4));
    expect(segments).toEqual([
      { start: 0, end: 2, text: 'Pickles ferment in brine.' },
      { start: 2, end: 4, text: 'Quince jelly sets overnight.' },
    ]);
    const [sent] = double.requests.slice(before);
    expect(sent).toMatchObject({
      fields: {
        model: 'whisper-1',
        response_format: 'verbose_json',
        'timestamp_granularities[]': 'segment',
        language: 'en',
      },
      fileBytes: 44 + 4 * 32_000,
      seconds: 4,
      authorization: 'Bearer sk-speech-secret',
    });
  });

  it('sends long audio in pieces of maxRequestSeconds and shifts their times', async () => {
    const before = double.requests.length;
    const segments = await make({ maxRequestSeconds: 2 }).transcribe(wavFile(5));
    expect(double.requests.slice(before).map((r) => r.seconds)).toEqual([2, 2, 1]);
    expect(segments.map((s) => [s.start, s.end])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 4.5],
      [4.5, 5],
    ]);
  });

  it('an answer without segments becomes one segment over the audio sent', async () => {
    const plain = await startTranscriptionDouble({ script: SCRIPT, jsonOnly: true });
    try {
      const t = make({ url: plain.baseUrl, apiKey: null });
      expect(await t.transcribe(wavFile(3))).toEqual([{ start: 0, end: 3, text: SCRIPT.join(' ') }]);
      expect(plain.requests[0].authorization).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('retries 429 and 5xx; a refused key fails for good without repeating the key', async () => {
    double.failNext(503);
    double.failNext(429);
    expect(await make().transcribe(wavFile(1))).toHaveLength(2);
    const refused = await make({ apiKey: 'sk-wrong-key' })
      .transcribe(wavFile(1))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TranscriptionError);
    expect(refused).toMatchObject({ code: 'transcription_failed', retryable: false });
    expect((refused as Error).message).toMatch(/answered 401: .*Incorrect API key provided: Bearer \*\*\*/);
    expect((refused as Error).message).not.toContain('sk-wrong-key');
  });

  it('an unreachable endpoint is a retryable failure; a file that is not WAV is refused before sending', async () => {
    const gone = make({ url: 'http://127.0.0.1:9/v1', maxRetries: 0 });
    await expect(gone.transcribe(wavFile(1))).rejects.toMatchObject({ code: 'transcription_failed', retryable: true });
    const notWav = join(dir, 'not.wav');
    writeFileSync(notWav, 'ID3 not a wav');
    await expect(make().transcribe(notWav)).rejects.toThrow(/not a WAV file/);
  });

  it('uses a URL that names the endpoint as it is (whisper.cpp `/inference`) and never shows its query', () => {
    expect(make({ url: 'http://127.0.0.1:8080/inference?key=abc' }).endpoint).toBe('http://127.0.0.1:8080/inference');
    expect(make({ url: 'https://api.openai.com/v1/' }).endpoint).toBe('https://api.openai.com/v1/audio/transcriptions');
  });
});
