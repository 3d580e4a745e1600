import { Allow } from 'class-validator';
import { isPlainObject, LIMITS, parseFilters, Problems, ValidationFailedError } from '@larder/kernel';
import type { LlmMessage, LlmTool } from '@larder/ai';
import { HOSTED_TOOL_TYPES, HostedToolDecl, HostedToolType, hostedKind } from '../../chat/hosted-tool-functions';
import { AnswerBodyRequestDto } from '../../chat/answer-body.request.dto';
import { bodyFieldReaders } from '../../chat/body-fields';

export type ChatToolChoice =
  'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } } | { type: HostedToolType };

export interface ChatParams {
  messages: LlmMessage[];
  /** The model the caller named (recorded; Larder answers with its configured model). */
  model: string | null;
  hostedTools: HostedToolDecl[];
  functionTools: LlmTool[];
  toolChoice: ChatToolChoice | null;
  parallelToolCalls: boolean | null;
  maxToolCalls: number;
  temperature: number | null;
  topP: number | null;
  maxTokens: number | null;
  metadata: Record<string, string> | null;
  store: boolean;
  previousCompletionId: string | null;
  stream: boolean;
  include: string[];
}

type Loc = (string | number)[];
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
export const MAX_TOOL_CALLS = 100;
export const DEFAULT_MAX_TOOL_CALLS = 10;
const MAX_MESSAGES = 2000;
const MAX_TOOLS = 128;
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * `ChatCreateCompletionParams`, OpenAI's chat body plus the hosted store tools. Every field is taken as sent and compiled by `params()`,
 * which reports each problem with its location (`["body","messages",2,"tool_call_id"]`).
 */
export class CreateChatCompletionRequestDto extends AnswerBodyRequestDto {
  @Allow() messages?: unknown;
  @Allow() previous_completion_id?: unknown;
  @Allow() previous_messages?: unknown;
  @Allow() terminal_tool_name?: unknown;
  @Allow() max_completion_tokens?: unknown;
  @Allow() max_tokens?: unknown;
  @Allow() context_management?: unknown;

  params(): ChatParams {
    const p = new Problems();
    const previous =
      this.previous_messages === undefined || this.previous_messages === null
        ? []
        : messagesOf(p, this.previous_messages, ['body', 'previous_messages'], true);
    const messages = messagesOf(p, this.messages, ['body', 'messages'], false);
    const { hosted, functions } = toolsOf(p, this.tools);
    const toolChoice = toolChoiceOf(p, this.tool_choice, hosted, functions);
    const { num, bool, str } = bodyFieldReaders(p);
    const temperature = num(this.temperature, 'temperature', 0, 2);
    const topP = num(this.top_p, 'top_p', 0, 1);
    const maxTokens =
      num(this.max_completion_tokens, 'max_completion_tokens', 1, 1_000_000, true) ??
      num(this.max_tokens, 'max_tokens', 1, 1_000_000, true);
    const maxToolCalls = num(this.max_tool_calls, 'max_tool_calls', 0, MAX_TOOL_CALLS, true);
    const metadata = metadataOf(p, this.metadata);
    const include: string[] = [];
    if (this.include !== undefined && this.include !== null) {
      if (!Array.isArray(this.include) || this.include.length > 32)
        p.add(['body', 'include'], 'Input should be a list of at most 32 strings', 'list_type', this.include);
      else
        this.include.forEach((x, i) =>
          typeof x === 'string' && x.length <= 128
            ? include.push(x)
            : p.add(['body', 'include', i], 'Input should be a valid string', 'string_type', x),
        );
    }
    const model = str(this.model, 'model', 500);
    const previousCompletionId = str(this.previous_completion_id, 'previous_completion_id', 200);
    str(this.terminal_tool_name, 'terminal_tool_name', 200);
    if (
      this.context_management !== undefined &&
      this.context_management !== null &&
      !isPlainObject(this.context_management)
    )
      p.add(['body', 'context_management'], 'Input should be an object', 'model_type', this.context_management);
    const store = bool(this.store, 'store') ?? false;
    const stream = bool(this.stream, 'stream') ?? false;
    const parallelToolCalls = bool(this.parallel_tool_calls, 'parallel_tool_calls');
    p.throwIfAny();
    return {
      messages: [...previous, ...messages],
      model,
      hostedTools: hosted,
      functionTools: functions,
      toolChoice,
      parallelToolCalls,
      maxToolCalls: maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
      temperature,
      topP,
      maxTokens,
      metadata,
      store,
      previousCompletionId,
      stream,
      include,
    };
  }
}

/** `content`: a string or a list of `{type: "text", text}` parts, joined. */
function textOf(p: Problems, v: unknown, loc: Loc, nullable: boolean): string | null {
  if (typeof v === 'string') return v;
  if ((v === null || v === undefined) && nullable) return null;
  if (Array.isArray(v)) {
    const parts: string[] = [];
    v.forEach((part, i) => {
      if (!isPlainObject(part) || (part.type !== undefined && part.type !== 'text') || typeof part.text !== 'string')
        p.add([...loc, i], 'Content parts should be {"type": "text", "text": string}', 'model_type', part);
      else parts.push(part.text);
    });
    return parts.join('\n');
  }
  p.add(loc, 'Input should be a string or a list of text parts', v === undefined ? 'missing' : 'string_type', v);
  return null;
}

function messagesOf(p: Problems, v: unknown, loc: Loc, optional: boolean): LlmMessage[] {
  if (!Array.isArray(v)) {
    p.add(
      loc,
      v === undefined ? 'Field required' : 'Input should be a valid list',
      v === undefined ? 'missing' : 'list_type',
      v,
    );
    return [];
  }
  if (!optional && v.length < 1) p.add(loc, 'List should have at least 1 item after validation, not 0', 'too_short', v);
  if (v.length > MAX_MESSAGES)
    p.add(
      loc,
      `List should have at most ${MAX_MESSAGES} items after validation, not ${v.length}`,
      'too_long',
      v.length,
    );
  const out: LlmMessage[] = [];
  v.slice(0, MAX_MESSAGES).forEach((m, i) => {
    const at = [...loc, i];
    if (!isPlainObject(m)) return p.add(at, 'Input should be a message object', 'model_type', m);
    if (!(ROLES as readonly unknown[]).includes(m.role))
      return p.add(
        [...at, 'role'],
        `Input should be ${ROLES.map((r) => `'${r}'`).join(', ')}`,
        'literal_error',
        m.role,
      );
    const role = m.role as LlmMessage['role'];
    const content = textOf(p, m.content, [...at, 'content'], role === 'assistant');
    const msg: LlmMessage = { role, content };
    if (role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || !m.tool_call_id)
        p.add([...at, 'tool_call_id'], 'Field required', 'missing', m.tool_call_id);
      else msg.tool_call_id = m.tool_call_id;
    }
    if (role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null) {
      if (!Array.isArray(m.tool_calls))
        p.add([...at, 'tool_calls'], 'Input should be a valid list', 'list_type', m.tool_calls);
      else {
        msg.tool_calls = [];
        m.tool_calls.forEach((c, j) => {
          const cl = [...at, 'tool_calls', j];
          if (!isPlainObject(c) || typeof c.id !== 'string' || !c.id)
            return p.add([...cl, 'id'], 'Field required', 'missing', c);
          const f = c.function;
          if (!isPlainObject(f) || typeof f.name !== 'string' || !f.name)
            return p.add([...cl, 'function', 'name'], 'Field required', 'missing', f);
          if (typeof f.arguments !== 'string')
            return p.add(
              [...cl, 'function', 'arguments'],
              'Input should be a valid string (JSON text)',
              'string_type',
              f.arguments,
            );
          msg.tool_calls!.push({ id: c.id, type: 'function', function: { name: f.name, arguments: f.arguments } });
        });
        if (!msg.tool_calls.length) delete msg.tool_calls;
      }
    }
    out.push(msg);
  });
  return out;
}

function toolsOf(p: Problems, v: unknown): { hosted: HostedToolDecl[]; functions: LlmTool[] } {
  const hosted: HostedToolDecl[] = [];
  const functions: LlmTool[] = [];
  if (v === undefined || v === null) return { hosted, functions };
  if (!Array.isArray(v)) {
    p.add(['body', 'tools'], 'Input should be a valid list', 'list_type', v);
    return { hosted, functions };
  }
  if (v.length > MAX_TOOLS)
    p.add(
      ['body', 'tools'],
      `List should have at most ${MAX_TOOLS} items after validation, not ${v.length}`,
      'too_long',
      v.length,
    );
  const names = new Set<string>();
  v.slice(0, MAX_TOOLS).forEach((t, i) => {
    const at: Loc = ['body', 'tools', i];
    if (!isPlainObject(t)) return p.add(at, 'Input should be a tool object', 'model_type', t);
    const type = t.type ?? (isPlainObject(t.function) ? 'function' : undefined);
    if (type === 'function') {
      const f = t.function;
      if (!isPlainObject(f)) return p.add([...at, 'function'], 'Field required', 'missing', f);
      if (typeof f.name !== 'string' || !FUNCTION_NAME.test(f.name))
        return p.add(
          [...at, 'function', 'name'],
          'Function names are 1 to 64 letters, digits, _ and -',
          'string_pattern_mismatch',
          f.name,
        );
      if (names.has(f.name))
        return p.add([...at, 'function', 'name'], `Tool name ${f.name} is declared twice`, 'value_error', f.name);
      if (f.description !== undefined && f.description !== null && typeof f.description !== 'string')
        p.add([...at, 'function', 'description'], 'Input should be a valid string', 'string_type', f.description);
      if (f.parameters !== undefined && f.parameters !== null && !isPlainObject(f.parameters))
        p.add([...at, 'function', 'parameters'], 'Input should be a JSON schema object', 'model_type', f.parameters);
      if (f.strict !== undefined && f.strict !== null && typeof f.strict !== 'boolean')
        p.add([...at, 'function', 'strict'], 'Input should be a valid boolean', 'bool_type', f.strict);
      names.add(f.name);
      functions.push({
        type: 'function',
        function: {
          name: f.name,
          ...(typeof f.description === 'string' ? { description: f.description } : {}),
          ...(isPlainObject(f.parameters) ? { parameters: f.parameters } : {}),
          ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
        },
      });
      return;
    }
    if (!(HOSTED_TOOL_TYPES as readonly unknown[]).includes(type))
      return p.add(
        [...at, 'type'],
        `Input should be 'function' or a hosted tool: ${HOSTED_TOOL_TYPES.join(', ')}`,
        'literal_error',
        type,
      );
    const decl = hostedDecl(p, t, type as HostedToolType, at);
    if (!decl) return;
    let name: string = decl.type;
    for (let n = 2; names.has(name); n++) name = `${decl.type}_${n}`;
    names.add(name);
    hosted.push({ ...decl, name });
  });
  return { hosted, functions };
}

function hostedDecl(
  p: Problems,
  t: Record<string, unknown>,
  type: HostedToolType,
  at: Loc,
): Omit<HostedToolDecl, 'name'> | null {
  const before = p.length;
  let storeIdentifiers: string[] | null = null;
  if (t.store_identifiers !== undefined && t.store_identifiers !== null) {
    const s = t.store_identifiers;
    if (!Array.isArray(s) || s.length < 1 || s.length > LIMITS.storeIdentifiers)
      p.add(
        [...at, 'store_identifiers'],
        `Input should be a list of 1 to ${LIMITS.storeIdentifiers} store ids or names`,
        'list_type',
        s,
      );
    else {
      s.forEach((x, j) =>
        typeof x !== 'string' || !x
          ? p.add([...at, 'store_identifiers', j], 'Input should be a valid string', 'string_type', x)
          : null,
      );
      storeIdentifiers = [...new Set(s as string[])];
    }
  }
  try {
    parseFilters(t.filters ?? null, [...at, 'filters']);
  } catch (err) {
    if (err instanceof ValidationFailedError) p.list.push(...err.detail);
    else throw err;
  }
  const st = t.score_threshold;
  if (st !== undefined && st !== null && (typeof st !== 'number' || !(st >= 0 && st <= 1)))
    p.add([...at, 'score_threshold'], 'Input should be a number between 0 and 1', 'float_type', st);
  const citations = t.citations;
  if (citations !== undefined && citations !== null && typeof citations !== 'boolean')
    p.add([...at, 'citations'], 'Input should be a valid boolean', 'bool_type', citations);
  const limit = t.limit;
  if (
    limit !== undefined &&
    limit !== null &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100)
  )
    p.add([...at, 'limit'], 'Input should be an integer from 1 to 100', 'int_type', limit);
  if (p.length > before) return null;
  return {
    type,
    kind: hostedKind(type),
    storeIdentifiers,
    rawFilters: t.filters ?? null,
    scoreThreshold: typeof st === 'number' ? st : 0,
    citations: typeof citations === 'boolean' ? citations : true,
    limit: typeof limit === 'number' ? limit : 20,
  };
}

function toolChoiceOf(p: Problems, v: unknown, hosted: HostedToolDecl[], functions: LlmTool[]): ChatToolChoice | null {
  const loc = ['body', 'tool_choice'];
  if (v === undefined || v === null) return null;
  if (v === 'auto' || v === 'none' || v === 'required') return v;
  if (isPlainObject(v)) {
    if (
      (v.type === 'function' || v.type === undefined) &&
      isPlainObject(v.function) &&
      typeof v.function.name === 'string'
    ) {
      const name = v.function.name;
      if (!functions.some((f) => f.function.name === name) && !hosted.some((h) => h.name === name))
        p.add([...loc, 'function', 'name'], `No tool named ${name} is declared in tools`, 'value_error', name);
      return { type: 'function', function: { name } };
    }
    if ((HOSTED_TOOL_TYPES as readonly unknown[]).includes(v.type)) {
      if (!hosted.some((h) => h.type === v.type))
        p.add([...loc, 'type'], `The hosted tool ${String(v.type)} is not declared in tools`, 'value_error', v.type);
      return { type: v.type as HostedToolType };
    }
  }
  p.add(
    loc,
    "Input should be 'auto', 'none', 'required', {type: 'function', function: {name}} or {type: <hosted tool>}",
    'value_error',
    v,
  );
  return null;
}

export function metadataOf(p: Problems, v: unknown): Record<string, string> | null {
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) {
    p.add(['body', 'metadata'], 'Input should be an object of strings', 'dict_type', v);
    return null;
  }
  const entries = Object.entries(v);
  if (entries.length > 16) p.add(['body', 'metadata'], 'At most 16 metadata keys', 'too_long', entries.length);
  for (const [k, x] of entries) {
    if (k.length > 64) p.add(['body', 'metadata', k], 'Keys have at most 64 characters', 'string_too_long', k);
    if (typeof x !== 'string' || x.length > 512)
      p.add(['body', 'metadata', k], 'Input should be a string of at most 512 characters', 'string_type', x);
  }
  return v as Record<string, string>;
}
