import { createServer, IncomingMessage, Server } from 'http';
import { AddressInfo } from 'net';
import { createHash } from 'crypto';

/**
 * A local stand-in for a remote OpenAI-compatible embeddings service (OpenAI, Mixedbread), speaking
 * its wire format: `POST /v1/embeddings` with `{model, input[], encoding_format, dimensions?}` and a
 * bearer key; answers `{object:'list', data:[{object:'embedding', index, embedding}], model, usage}`
 * with deterministic vectors (a hash of the text), in shuffled order as the protocol allows.
 * `failNext(status)` makes the next call fail like the real service does under load or misuse.
 */
export interface EmbeddingsDouble {
  baseUrl: string;
  requests: Array<{ model: string; input: string[]; authorization: string | undefined; encoding_format?: string }>;
  failNext(status: number, times?: number): void;
  vectorOf(text: string, dims: number): Float32Array;
  close(): Promise<void>;
}

export function hashVector(text: string, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let h = createHash('sha256').update(text).digest();
  for (let i = 0; i < dims; i++) {
    if (i % 32 === 0 && i) h = createHash('sha256').update(h).digest();
    v[i] = h[i % 32] / 255 - 0.5;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.on('data', (d) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

export async function startEmbeddingsDouble(options: {
  apiKey?: string;
  dims: number;
  delayMs?: number;
}): Promise<EmbeddingsDouble> {
  const requests: EmbeddingsDouble['requests'] = [];
  let failures: number[] = [];
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http ignores the handler's promise; the handler answers every path itself
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings')
      return send(404, { error: { message: 'not found', type: 'invalid_request_error' } });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
    const body = JSON.parse(await readBody(req)) as {
      model: string;
      input: string[] | string;
      encoding_format?: string;
      dimensions?: number;
    };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    requests.push({
      model: body.model,
      input,
      authorization: req.headers.authorization,
      encoding_format: body.encoding_format,
    });
    const fail = failures.shift();
    if (fail)
      return send(fail, {
        error: {
          message: fail === 429 ? 'Rate limit reached' : 'upstream failure',
          type: fail === 429 ? 'rate_limit_exceeded' : 'server_error',
        },
      });
    if (input.some((t) => typeof t !== 'string' || t.length === 0))
      return send(400, {
        error: { message: "'input' items must be non-empty strings", type: 'invalid_request_error' },
      });
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const dims = body.dimensions ?? options.dims;
    const data = input.map((t, index) => {
      const v = hashVector(t, dims);
      return {
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? Buffer.from(v.buffer).toString('base64') : Array.from(v),
      };
    });
    data.reverse();
    send(200, {
      object: 'list',
      data,
      model: body.model,
      usage: { prompt_tokens: input.join(' ').split(/\s+/).length, total_tokens: input.join(' ').split(/\s+/).length },
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext: (status, times = 1) => (failures = [...failures, ...Array(times).fill(status)]),
    vectorOf: hashVector,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
