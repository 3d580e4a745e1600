import { createServer, IncomingMessage, Server } from 'http';
import { AddressInfo } from 'net';
import busboy from 'busboy';

/**
 * A local stand-in for OpenAI's speech-to-text endpoint: `POST /v1/audio/transcriptions` as
 * `multipart/form-data` with `file`, `model`, `response_format` (`json`, `text`, `verbose_json`) and
 * optional `language`, answered as OpenAI answers: `{text}` (json), the bare text (text), or
 * `{task, language, duration, text, segments: [{id, seek, start, end, text, tokens, temperature,
 * avg_logprob, compression_ratio, no_speech_prob}]}` (verbose_json). Like OpenAI it reads the file's
 * duration and refuses a file over `maxFileBytes` (413) and one that is not audio (400). What it
 * "hears" is `script`: its sentences spread evenly over the audio sent. `failNext(status)` fails
 * calls as the service does under load; `echoKey` repeats a wrong key in the 401; `jsonOnly`
 * answers `{text}` whatever was asked, as some self-hosted servers do.
 */
export interface TranscriptionDouble {
  /** Base URL up to the version (`http://127.0.0.1:port/v1`). */
  baseUrl: string;
  requests: Array<{ fields: Record<string, string>; fileBytes: number; seconds: number; authorization?: string }>;
  failNext(status: number, times?: number): void;
  close(): Promise<void>;
}

interface Form {
  fields: Record<string, string>;
  file: Buffer | null;
}

const readForm = (req: IncomingMessage) =>
  new Promise<Form>((resolve, reject) => {
    const form: Form = { fields: {}, file: null };
    const bb = busboy({ headers: req.headers });
    bb.on('field', (name, value) => (form.fields[name] = value));
    bb.on('file', (_name, stream) => {
      const parts: Buffer[] = [];
      stream.on('data', (d: Buffer) => parts.push(d));
      stream.on('end', () => (form.file = Buffer.concat(parts)));
    });
    bb.on('close', () => resolve(form));
    bb.on('error', reject);
    req.pipe(bb);
  });

/** The seconds of a PCM WAV, or null when the bytes are not one. */
function wavSeconds(file: Buffer): number | null {
  if (file.toString('latin1', 0, 4) !== 'RIFF' || file.toString('latin1', 8, 12) !== 'WAVE') return null;
  const byteRate = file.readUInt32LE(28);
  return byteRate ? (file.length - 44) / byteRate : null;
}

export async function startTranscriptionDouble(options: {
  script: string[];
  apiKey?: string;
  echoKey?: boolean;
  maxFileBytes?: number;
  jsonOnly?: boolean;
}): Promise<TranscriptionDouble> {
  const requests: TranscriptionDouble['requests'] = [];
  let failures: number[] = [];
  const error = (message: string, type: string) => ({ error: { message, type, param: null, code: null } });
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http ignores the handler's promise; the handler answers every path itself
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions')
      return send(404, error('Not found', 'invalid_request_error'));
    if (!String(req.headers['content-type']).startsWith('multipart/form-data'))
      return send(400, error('expected multipart/form-data', 'invalid_request_error'));
    const form = await readForm(req);
    const seconds = form.file ? wavSeconds(form.file) : null;
    requests.push({
      fields: form.fields,
      fileBytes: form.file?.length ?? 0,
      seconds: seconds ?? 0,
      authorization: req.headers.authorization,
    });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(
        401,
        error(
          options.echoKey ? `Incorrect API key provided: ${String(req.headers.authorization)}` : 'Incorrect API key',
          'invalid_request_error',
        ),
      );
    const fail = failures.shift();
    if (fail) return send(fail, error(fail === 429 ? 'Rate limit reached' : 'The server had an error', 'server_error'));
    if (!form.file || !form.fields.model)
      return send(400, error('file and model are required', 'invalid_request_error'));
    if (form.file.length > (options.maxFileBytes ?? 25 * 1024 * 1024))
      return send(413, error('Maximum content size limit exceeded', 'invalid_request_error'));
    if (seconds === null) return send(400, error('Invalid file format.', 'invalid_request_error'));
    const step = seconds / Math.max(1, options.script.length);
    const segments = options.script.map((text, id) => ({
      id,
      seek: 0,
      start: id * step,
      end: (id + 1) * step,
      text: ` ${text}`,
      tokens: [],
      temperature: 0,
      avg_logprob: -0.2,
      compression_ratio: 1.1,
      no_speech_prob: 0.01,
    }));
    const text = options.script.join(' ');
    switch (options.jsonOnly ? 'json' : (form.fields.response_format ?? 'json')) {
      case 'text':
        return send(200, text);
      case 'verbose_json':
        return send(200, {
          task: 'transcribe',
          language: form.fields.language ?? 'english',
          duration: seconds,
          text,
          segments,
        });
      default:
        return send(200, { text });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext: (status, times = 1) => (failures = [...failures, ...Array<number>(times).fill(status)]),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
