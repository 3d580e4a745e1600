/** The request side of `POST /v1/chat/completions`: the body, OpenAI's 400 checks, its error shape, body reading. */
import { IncomingMessage, ServerResponse } from 'http';

/** The request body (only what the double looks at is typed). */
export interface ChatCompletionRequestBody {
  model: string;
  messages: Array<{ role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string; name?: string }>;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  response_format?: { type: string };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** What OpenAI answers 400 to (the mistakes an adapter could make). */
export function checkRequest(body: ChatCompletionRequestBody): { message: string; param: string } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { message: 'The body must be a JSON object.', param: '' };
  if (typeof body.model !== 'string' || !body.model)
    return { message: 'you must provide a model parameter', param: 'model' };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return { message: "Invalid 'messages': empty array. Expected an array with minimum length 1.", param: 'messages' };
  for (const [i, m] of body.messages.entries()) {
    if (typeof m !== 'object' || m === null || !ROLES.has(m.role))
      return { message: `Invalid value for 'messages[${i}].role'.`, param: `messages[${i}].role` };
    if (m.content !== null && typeof m.content !== 'string' && !Array.isArray(m.content))
      return { message: `Invalid type for 'messages[${i}].content'.`, param: `messages[${i}].content` };
    if (m.role === 'tool' && typeof m.tool_call_id !== 'string')
      return {
        message: `Missing required parameter: 'messages[${i}].tool_call_id'.`,
        param: `messages[${i}].tool_call_id`,
      };
    if (m.tool_calls !== undefined && (m.role !== 'assistant' || !Array.isArray(m.tool_calls)))
      return { message: `Invalid 'messages[${i}].tool_calls'.`, param: `messages[${i}].tool_calls` };
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0)
      return { message: "Invalid 'tools': empty array. Expected an array with minimum length 1.", param: 'tools' };
    for (const [i, t] of body.tools.entries()) {
      if (t?.type !== 'function' || typeof t.function?.name !== 'string')
        return { message: `Invalid value for 'tools[${i}]'.`, param: `tools[${i}]` };
    }
  }
  if (body.tool_choice !== undefined && body.tools === undefined)
    return {
      message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      param: 'tool_choice',
    };
  if (body.parallel_tool_calls !== undefined && body.tools === undefined)
    return {
      message:
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
      param: 'parallel_tool_calls',
    };
  if (body.stream_options !== undefined && body.stream !== true)
    return {
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: 'stream_options',
    };
  if (
    body.response_format !== undefined &&
    !['text', 'json_object', 'json_schema'].includes(body.response_format?.type)
  )
    return { message: "Invalid value for 'response_format.type'.", param: 'response_format' };
  return null;
}

/** An error in OpenAI's `{error:{message,type,param,code}}` shape. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param, code } }));
}

export const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
