import { createServer, IncomingMessage, Server } from 'http';
import { AddressInfo } from 'net';

/**
 * A local stand-in for a remote reranking service, speaking the wire format of one of the hosted APIs:
 * - mixedbread: `POST /v1/reranking` `{model, query, input[], top_k?, return_input?}` →
 *   `{object:'list', model, data:[{object:'rank_result', index, score, input?}], top_k, return_input, usage}`
 * - cohere: `POST /v1/rerank` and `/v2/rerank` `{model, query, documents[], top_n?}` →
 *   `{id, results:[{index, relevance_score}], meta}`
 * - jina: `POST /v1/rerank` `{model, query, documents[], top_n?, return_documents?}` →
 *   `{model, usage, results:[{index, relevance_score, document?}]}`
 * Results come best first and cut to top_k/top_n, as the services answer. A document scores the share
 * of the query's words it contains, or 1 when it contains the `favour` keyword. `failNext(status)`
 * fails calls as the services do under load; `dropNext()` leaves a result out of the next answer;
 * `logits` answers raw scores in (−∞, ∞) as some self-hosted servers do.
 */
export type RerankDoubleFormat = 'mixedbread' | 'cohere' | 'jina';

export interface RerankDouble {
  /** Base URL up to the version (`http://127.0.0.1:port/v1`). */
  baseUrl: string;
  requests: Array<{ path: string; body: Record<string, unknown>; authorization: string | undefined }>;
  failNext(status: number, times?: number): void;
  dropNext(): void;
  relevance(query: string, document: string): number;
  close(): Promise<void>;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.on('data', (d) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

export async function startRerankDouble(options: {
  format: RerankDoubleFormat;
  apiKey?: string;
  favour?: string;
  logits?: boolean;
  echoKey?: boolean;
}): Promise<RerankDouble> {
  const requests: RerankDouble['requests'] = [];
  let failures: number[] = [];
  let drop = false;
  const relevance = (query: string, document: string) => {
    const d = words(document);
    if (options.favour && d.has(options.favour.toLowerCase())) return 1;
    const q = [...words(query)];
    return q.length ? q.filter((w) => d.has(w)).length / q.length : 0;
  };
  const paths =
    options.format === 'mixedbread'
      ? ['/v1/reranking']
      : options.format === 'cohere'
        ? ['/v1/rerank', '/v2/rerank']
        : ['/v1/rerank'];
  const error = (message: string, type: string) =>
    options.format === 'mixedbread'
      ? { detail: message, type }
      : options.format === 'cohere'
        ? { message }
        : { detail: message };
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http ignores the handler's promise; the handler answers every path itself
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || !paths.includes(req.url ?? '')) return send(404, error('Not Found', 'not_found'));
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return send(400, error('invalid JSON body', 'invalid_request'));
    }
    requests.push({ path: req.url!, body, authorization: req.headers.authorization });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(
        401,
        error(
          options.echoKey ? `invalid api token ${String(req.headers.authorization)}` : 'invalid api token',
          'unauthorized',
        ),
      );
    }
    const fail = failures.shift();
    if (fail)
      return send(
        fail,
        error(fail === 429 ? 'rate limit exceeded' : 'upstream failure', fail === 429 ? 'rate_limit' : 'server_error'),
        fail === 429 ? { 'retry-after': '0' } : {},
      );
    const docsField = options.format === 'mixedbread' ? 'input' : 'documents';
    const docs = body[docsField];
    if (
      typeof body.model !== 'string' ||
      typeof body.query !== 'string' ||
      !Array.isArray(docs) ||
      !docs.length ||
      docs.some((d) => typeof d !== 'string' || !d)
    ) {
      return send(
        422,
        error(`model, query and a non-empty ${docsField} list of non-empty strings are required`, 'validation_error'),
      );
    }
    const limit = Number((options.format === 'mixedbread' ? body.top_k : body.top_n) ?? docs.length);
    const ranked = (docs as string[])
      .map((d, index) => ({ index, score: relevance(body.query as string, d), d }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, limit);
    if (drop) {
      drop = false;
      ranked.pop();
    }
    const score = (s: number) => (options.logits ? 8 * s - 4 : s);
    const tokens = (docs as string[]).join(' ').split(/\s+/).length;
    if (options.format === 'mixedbread') {
      return send(200, {
        object: 'list',
        model: body.model,
        data: ranked.map((r) => ({
          object: 'rank_result',
          index: r.index,
          score: score(r.score),
          ...(body.return_input ? { input: r.d } : {}),
        })),
        top_k: limit,
        return_input: !!body.return_input,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    }
    if (options.format === 'cohere') {
      return send(200, {
        id: `rr-${requests.length}`,
        results: ranked.map((r) => ({ index: r.index, relevance_score: score(r.score) })),
        meta: { api_version: { version: req.url!.startsWith('/v2') ? '2' : '1' }, billed_units: { search_units: 1 } },
      });
    }
    return send(200, {
      model: body.model,
      usage: { total_tokens: tokens },
      results: ranked.map((r) => ({
        index: r.index,
        relevance_score: score(r.score),
        ...(body.return_documents === false ? {} : { document: { text: r.d } }),
      })),
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext: (status, times = 1) => (failures = [...failures, ...Array<number>(times).fill(status)]),
    dropNext: () => (drop = true),
    relevance,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
