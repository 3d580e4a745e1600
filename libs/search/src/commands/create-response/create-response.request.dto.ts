import { Allow } from 'class-validator';
import { isPlainObject, LIMITS, Problems } from '@larder/kernel';
import type { LlmMessage, LlmTool } from '@larder/ai';
import type { HostedToolDecl } from '../../chat/hosted-tool-functions';
import { AnswerBodyRequestDto } from '../../chat/answer-body.request.dto';
import { bodyFieldReaders } from '../../chat/body-fields';
import { openAiFilter } from '../../openai/openai-filters';
import {
  DEFAULT_MAX_TOOL_CALLS,
  MAX_TOOL_CALLS,
  metadataOf,
} from '../create-chat-completion/create-chat-completion.request.dto';
import type { ChatToolChoice } from '../create-chat-completion/create-chat-completion.request.dto';

/** One input item as the Responses API lists it back (`GET /v1/responses/{id}/input_items`). */
export type ResponseInputItem =
  | {
      type: 'message';
      role: 'user' | 'system' | 'developer' | 'assistant';
      content: Array<{ type: 'input_text' | 'output_text'; text: string }>;
    }
  | { type: 'function_call_output'; call_id: string; output: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string };

export interface ResponseParams {
  /** The request's input as messages for the model, and as items to list back. */
  messages: LlmMessage[];
  inputItems: ResponseInputItem[];
  instructions: string | null;
  model: string | null;
  hostedTools: HostedToolDecl[];
  functionTools: LlmTool[];
  /** The tools as declared, echoed in the response. */
  tools: Record<string, unknown>[];
  toolChoice: ChatToolChoice | null;
  parallelToolCalls: boolean | null;
  maxToolCalls: number;
  temperature: number | null;
  topP: number | null;
  maxOutputTokens: number | null;
  metadata: Record<string, string> | null;
  store: boolean;
  previousResponseId: string | null;
  stream: boolean;
  include: string[];
  user: string | null;
}

type Loc = (string | number)[];
const MAX_ITEMS = 2000;
const MAX_TOOLS = 128;
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const INCLUDES = ['file_search_call.results', 'message.output_text.logprobs', 'reasoning.encrypted_content'];

/**
 * OpenAI's `ResponseCreateParams`: text input (a string, or message and function-call items), the
 * `file_search` tool over vector stores (Larder's stores) and function tools. Every field is taken as
 * sent and compiled by `params()`, which reports each problem with its location.
 */
export class CreateResponseRequestDto extends AnswerBodyRequestDto {
  @Allow() input?: unknown;
  @Allow() instructions?: unknown;
  @Allow() max_output_tokens?: unknown;
  @Allow() previous_response_id?: unknown;
  @Allow() user?: unknown;
  @Allow() text?: unknown;
  @Allow() truncation?: unknown;
  @Allow() reasoning?: unknown;
  @Allow() service_tier?: unknown;
  @Allow() background?: unknown;

  params(): ResponseParams {
    const p = new Problems();
    const { num, bool, str } = bodyFieldReaders(p);
    const { messages, items } = inputOf(p, this.input);
    const instructions =
      this.instructions === undefined || this.instructions === null
        ? null
        : str(this.instructions, 'instructions', 256_000);
    const { hosted, functions, declared } = toolsOf(p, this.tools);
    const toolChoice = toolChoiceOf(p, this.tool_choice, hosted, functions);
    const include: string[] = [];
    if (this.include !== undefined && this.include !== null) {
      if (!Array.isArray(this.include) || this.include.length > 32)
        p.add(['body', 'include'], 'Input should be a list of at most 32 strings', 'list_type', this.include);
      else
        this.include.forEach((x, i) =>
          typeof x === 'string' && INCLUDES.includes(x)
            ? include.push(x)
            : p.add(['body', 'include', i], `Input should be one of ${INCLUDES.join(', ')}`, 'enum', x),
        );
    }
    if (this.text !== undefined && this.text !== null) {
      const format = isPlainObject(this.text) ? this.text.format : undefined;
      if (
        !isPlainObject(this.text) ||
        (format !== undefined && format !== null && !(isPlainObject(format) && format.type === 'text'))
      )
        p.add(['body', 'text', 'format'], "Only the 'text' output format is served", 'value_error', this.text);
    }
    if (this.background === true)
      p.add(
        ['body', 'background'],
        'Background responses are not served: leave background unset or false',
        'value_error',
        true,
      );
    if (
      this.truncation !== undefined &&
      this.truncation !== null &&
      this.truncation !== 'disabled' &&
      this.truncation !== 'auto'
    )
      p.add(['body', 'truncation'], "Input should be 'auto' or 'disabled'", 'literal_error', this.truncation);
    const out: ResponseParams = {
      messages,
      inputItems: items,
      instructions,
      model: str(this.model, 'model', 500),
      hostedTools: hosted,
      functionTools: functions,
      tools: declared,
      toolChoice,
      parallelToolCalls: bool(this.parallel_tool_calls, 'parallel_tool_calls'),
      maxToolCalls: num(this.max_tool_calls, 'max_tool_calls', 0, MAX_TOOL_CALLS, true) ?? DEFAULT_MAX_TOOL_CALLS,
      temperature: num(this.temperature, 'temperature', 0, 2),
      topP: num(this.top_p, 'top_p', 0, 1),
      maxOutputTokens: num(this.max_output_tokens, 'max_output_tokens', 1, 1_000_000, true),
      metadata: metadataOf(p, this.metadata),
      store: bool(this.store, 'store') ?? true,
      previousResponseId: str(this.previous_response_id, 'previous_response_id', 200),
      stream: bool(this.stream, 'stream') ?? false,
      include,
      user: str(this.user, 'user', 256),
    };
    p.throwIfAny();
    return out;
  }
}

/** A message's `content`: a string, or `input_text` / `output_text` parts (text only). */
function partsOf(p: Problems, v: unknown, loc: Loc): Array<{ type: 'input_text' | 'output_text'; text: string }> {
  if (typeof v === 'string') return [{ type: 'input_text', text: v }];
  if (!Array.isArray(v)) {
    p.add(
      loc,
      'Input should be a string or a list of input_text parts',
      v === undefined ? 'missing' : 'string_type',
      v,
    );
    return [];
  }
  const parts: Array<{ type: 'input_text' | 'output_text'; text: string }> = [];
  v.forEach((part, i) => {
    if (
      !isPlainObject(part) ||
      (part.type !== 'input_text' && part.type !== 'output_text') ||
      typeof part.text !== 'string'
    )
      p.add(
        [...loc, i],
        'Content parts should be {"type": "input_text", "text": string} (text input only)',
        'model_type',
        part,
      );
    else parts.push({ type: part.type, text: part.text });
  });
  return parts;
}

function inputOf(p: Problems, v: unknown): { messages: LlmMessage[]; items: ResponseInputItem[] } {
  const loc: Loc = ['body', 'input'];
  if (typeof v === 'string') {
    if (!v) p.add(loc, 'Input should not be empty', 'string_too_short', v);
    return {
      messages: [{ role: 'user', content: v }],
      items: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: v }] }],
    };
  }
  if (!Array.isArray(v) || !v.length || v.length > MAX_ITEMS) {
    p.add(
      loc,
      `Input should be a string or a list of 1 to ${MAX_ITEMS} items`,
      v === undefined ? 'missing' : 'list_type',
      v,
    );
    return { messages: [], items: [] };
  }
  const messages: LlmMessage[] = [];
  const items: ResponseInputItem[] = [];
  v.forEach((item, i) => {
    const at = [...loc, i];
    if (!isPlainObject(item)) return p.add(at, 'Input should be an input item object', 'model_type', item);
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = item.role;
      if (role !== 'user' && role !== 'system' && role !== 'developer' && role !== 'assistant')
        return p.add(
          [...at, 'role'],
          "Input should be 'user', 'system', 'developer' or 'assistant'",
          'literal_error',
          role,
        );
      const content = partsOf(p, item.content, [...at, 'content']);
      messages.push({ role, content: content.map((c) => c.text).join('\n') });
      items.push({ type: 'message', role, content });
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string' || !item.call_id)
        return p.add([...at, 'call_id'], 'Field required', 'missing', item.call_id);
      if (typeof item.output !== 'string')
        return p.add([...at, 'output'], 'Input should be a valid string', 'string_type', item.output);
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
      items.push({ type: 'function_call_output', call_id: item.call_id, output: item.output });
    } else if (type === 'function_call') {
      if (typeof item.call_id !== 'string' || !item.call_id)
        return p.add([...at, 'call_id'], 'Field required', 'missing', item.call_id);
      if (typeof item.name !== 'string' || !item.name)
        return p.add([...at, 'name'], 'Field required', 'missing', item.name);
      if (typeof item.arguments !== 'string')
        return p.add([...at, 'arguments'], 'Input should be a valid string (JSON text)', 'string_type', item.arguments);
      const call = {
        id: item.call_id,
        type: 'function' as const,
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages[messages.length - 1];
      // consecutive calls are one assistant turn
      if (last?.role === 'assistant' && last.tool_calls && !last.content) last.tool_calls.push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      items.push({ type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments });
    } else if (type === 'file_search_call' || type === 'reasoning') {
      // an earlier turn's output echoed back: its results already reached the model in that turn
    } else
      p.add(
        [...at, 'type'],
        "Input items are 'message', 'function_call' and 'function_call_output' (text only)",
        'literal_error',
        type,
      );
  });
  return { messages, items };
}

function toolsOf(
  p: Problems,
  v: unknown,
): { hosted: HostedToolDecl[]; functions: LlmTool[]; declared: Record<string, unknown>[] } {
  const hosted: HostedToolDecl[] = [];
  const functions: LlmTool[] = [];
  const declared: Record<string, unknown>[] = [];
  if (v === undefined || v === null) return { hosted, functions, declared };
  if (!Array.isArray(v) || v.length > MAX_TOOLS) {
    p.add(['body', 'tools'], `Input should be a list of at most ${MAX_TOOLS} tools`, 'list_type', v);
    return { hosted, functions, declared };
  }
  const names = new Set<string>();
  v.forEach((t, i) => {
    const at: Loc = ['body', 'tools', i];
    if (!isPlainObject(t)) return p.add(at, 'Input should be a tool object', 'model_type', t);
    if (t.type === 'function') {
      if (typeof t.name !== 'string' || !FUNCTION_NAME.test(t.name))
        return p.add(
          [...at, 'name'],
          'Function names are 1 to 64 letters, digits, _ and -',
          'string_pattern_mismatch',
          t.name,
        );
      if (names.has(t.name) || t.name === 'file_search')
        return p.add([...at, 'name'], `Tool name ${t.name} is declared twice`, 'value_error', t.name);
      if (t.parameters !== undefined && t.parameters !== null && !isPlainObject(t.parameters))
        return p.add([...at, 'parameters'], 'Input should be a JSON schema object', 'model_type', t.parameters);
      names.add(t.name);
      const description = typeof t.description === 'string' ? t.description : undefined;
      const parameters = isPlainObject(t.parameters) ? t.parameters : undefined;
      const strict = typeof t.strict === 'boolean' ? t.strict : undefined;
      functions.push({
        type: 'function',
        function: {
          name: t.name,
          ...(description ? { description } : {}),
          ...(parameters ? { parameters } : {}),
          ...(strict !== undefined ? { strict } : {}),
        },
      });
      declared.push({
        type: 'function',
        name: t.name,
        description: description ?? null,
        parameters: parameters ?? null,
        strict: strict ?? null,
      });
      return;
    }
    if (t.type !== 'file_search')
      return p.add(
        [...at, 'type'],
        "Input should be 'file_search' or 'function' (the tools Larder serves)",
        'literal_error',
        t.type,
      );
    if (hosted.length) return p.add(at, 'file_search is declared twice', 'value_error');
    const ids = t.vector_store_ids;
    if (
      !Array.isArray(ids) ||
      !ids.length ||
      ids.length > LIMITS.storeIdentifiers ||
      !ids.every((x) => typeof x === 'string' && x)
    )
      return p.add(
        [...at, 'vector_store_ids'],
        `Input should be a list of 1 to ${LIMITS.storeIdentifiers} vector store ids`,
        'list_type',
        ids,
      );
    const max = t.max_num_results;
    if (max !== undefined && max !== null && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 50))
      p.add([...at, 'max_num_results'], 'Input should be an integer from 1 to 50', 'int_type', max);
    const ranking = t.ranking_options;
    const threshold = isPlainObject(ranking) ? ranking.score_threshold : undefined;
    if (
      threshold !== undefined &&
      threshold !== null &&
      (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1))
    )
      p.add(
        [...at, 'ranking_options', 'score_threshold'],
        'Input should be a number between 0 and 1',
        'float_type',
        threshold,
      );
    const filter = openAiFilter(t.filters, p, [...at, 'filters']);
    hosted.push({
      type: 'file_search',
      kind: 'store_search',
      name: 'file_search',
      storeIdentifiers: [...new Set(ids as string[])],
      rawFilters: null,
      filter,
      topK: typeof max === 'number' ? max : 10,
      scoreThreshold: typeof threshold === 'number' ? threshold : 0,
      citations: true,
      limit: 20,
    });
    declared.push({
      type: 'file_search',
      vector_store_ids: ids,
      filters: t.filters ?? null,
      max_num_results: typeof max === 'number' ? max : 10,
      ranking_options: { ranker: 'auto', score_threshold: typeof threshold === 'number' ? threshold : 0 },
    });
  });
  return { hosted, functions, declared };
}

function toolChoiceOf(p: Problems, v: unknown, hosted: HostedToolDecl[], functions: LlmTool[]): ChatToolChoice | null {
  const loc = ['body', 'tool_choice'];
  if (v === undefined || v === null) return null;
  if (v === 'auto' || v === 'none' || v === 'required') return v;
  if (isPlainObject(v) && v.type === 'file_search') {
    if (!hosted.length) p.add([...loc, 'type'], 'file_search is not declared in tools', 'value_error', v.type);
    return { type: 'file_search' };
  }
  if (isPlainObject(v) && v.type === 'function' && typeof v.name === 'string') {
    const name = v.name;
    if (!functions.some((f) => f.function.name === name))
      p.add([...loc, 'name'], `No function named ${name} is declared in tools`, 'value_error', name);
    return { type: 'function', function: { name } };
  }
  p.add(
    loc,
    "Input should be 'auto', 'none', 'required', {type: 'file_search'} or {type: 'function', name}",
    'value_error',
    v,
  );
  return null;
}
