import { Allow } from 'class-validator';
import { isPlainObject, Problems } from '@larder/kernel';
import { ENCODING_FORMATS, EncodingFormat } from '../../models/encodings';

export const MAX_EMBEDDING_INPUTS = 2048;
export const MAX_EMBEDDING_INPUT_CHARS = 64_000;
export const MAX_PROMPT_CHARS = 32_000;
export const TRUNCATION_STRATEGIES = ['start', 'end', 'none'] as const;
export type TruncationStrategy = (typeof TRUNCATION_STRATEGIES)[number];

export interface EmbeddingsParams {
  model: string;
  texts: string[];
  /** `input` was a list (a problem with one text is reported at its index). */
  inputIsList: boolean;
  dimensions: number | null;
  prompt: string | null;
  normalized: boolean;
  /** The formats asked for, each once, in request order. */
  formats: EncodingFormat[];
  /** `encoding_format` as sent (echoed): one format, or a list (several → `embedding_dict`). */
  encodingFormat: EncodingFormat | EncodingFormat[];
  truncation: TruncationStrategy;
}

type Loc = (string | number)[];

/**
 * The body of `POST /v1/embeddings`, as every client sends it: Mixedbread's (`model`, `input`
 * as a string, a list, a text input `{type?: "text", text}` or a list of them, `dimensions`, `prompt`,
 * `normalized`, `encoding_format` one or several, `truncation_strategy`; the 2.x client and
 * `@llamaindex/mixedbread` send absent options as `null`, the Vercel AI provider says `normalize`),
 * and OpenAI's (`input`, `model`, `encoding_format` `float`|`base64`, `dimensions`, `user`).
 * `params()` compiles it and reports each problem at its location.
 */
export class CreateEmbeddingsRequestDto {
  @Allow() model?: unknown;
  @Allow() input?: unknown;
  @Allow() dimensions?: unknown;
  @Allow() prompt?: unknown;
  @Allow() normalized?: unknown;
  @Allow() normalize?: unknown;
  @Allow() encoding_format?: unknown;
  @Allow() truncation_strategy?: unknown;
  @Allow() user?: unknown;

  params(): EmbeddingsParams {
    const p = new Problems();
    const absent = (v: unknown) => v === undefined || v === null;

    let model = '';
    if (absent(this.model)) p.add(['body', 'model'], 'Field required', 'missing', this.model);
    else if (typeof this.model !== 'string')
      p.add(['body', 'model'], 'Input should be a valid string', 'string_type', this.model);
    else if (!this.model || this.model.length > 500)
      p.add(
        ['body', 'model'],
        'String should have 1 to 500 characters',
        this.model ? 'string_too_long' : 'string_too_short',
        this.model,
      );
    else model = this.model;

    const texts = inputTexts(p, this.input);

    let dimensions: number | null = null;
    if (!absent(this.dimensions)) {
      if (typeof this.dimensions !== 'number' || !Number.isInteger(this.dimensions))
        p.add(['body', 'dimensions'], 'Input should be a valid integer', 'int_type', this.dimensions);
      else if (this.dimensions < 1)
        p.add(['body', 'dimensions'], 'Input should be greater than 0', 'greater_than', this.dimensions);
      else dimensions = this.dimensions;
    }

    let prompt: string | null = null;
    if (!absent(this.prompt)) {
      if (typeof this.prompt !== 'string')
        p.add(['body', 'prompt'], 'Input should be a valid string', 'string_type', this.prompt);
      else if (!this.prompt || this.prompt.length > MAX_PROMPT_CHARS)
        p.add(
          ['body', 'prompt'],
          `String should have 1 to ${MAX_PROMPT_CHARS} characters`,
          this.prompt ? 'string_too_long' : 'string_too_short',
          this.prompt.length,
        );
      else prompt = this.prompt;
    }

    // `normalized` (Mixedbread) or `normalize` (the Vercel AI provider); both, when they disagree, are a mistake
    const flag = (v: unknown, field: string): boolean | null => {
      if (absent(v)) return null;
      if (typeof v !== 'boolean') p.add(['body', field], 'Input should be a valid boolean', 'bool_type', v);
      return typeof v === 'boolean' ? v : null;
    };
    const normalized = flag(this.normalized, 'normalized');
    const normalize = flag(this.normalize, 'normalize');
    if (normalized !== null && normalize !== null && normalized !== normalize)
      p.add(
        ['body', 'normalize'],
        'normalize and normalized disagree; send one of them',
        'value_error',
        this.normalize,
      );

    let encodingFormat: EncodingFormat | EncodingFormat[] = 'float';
    const isFormat = (v: unknown): v is EncodingFormat =>
      typeof v === 'string' && (ENCODING_FORMATS as readonly string[]).includes(v);
    const formatMsg = `Input should be ${ENCODING_FORMATS.map((f) => `'${f}'`).join(', ')}`;
    if (!absent(this.encoding_format)) {
      const v = this.encoding_format;
      if (Array.isArray(v)) {
        if (!v.length)
          p.add(
            ['body', 'encoding_format'],
            'List should have at least 1 item after validation, not 0',
            'too_short',
            v,
          );
        v.forEach((f, i) => {
          if (!isFormat(f)) p.add(['body', 'encoding_format', i], formatMsg, 'enum', f);
        });
        if (v.length && v.every(isFormat)) encodingFormat = v;
      } else if (!isFormat(v)) p.add(['body', 'encoding_format'], formatMsg, 'enum', v);
      else encodingFormat = v;
    }

    let truncation: TruncationStrategy = 'end';
    if (!absent(this.truncation_strategy)) {
      const v = this.truncation_strategy;
      if (typeof v !== 'string' || !(TRUNCATION_STRATEGIES as readonly string[]).includes(v))
        p.add(['body', 'truncation_strategy'], "Input should be 'start', 'end' or 'none'", 'enum', v);
      else truncation = v as TruncationStrategy;
    }

    if (!absent(this.user) && typeof this.user !== 'string')
      p.add(['body', 'user'], 'Input should be a valid string', 'string_type', this.user);

    p.throwIfAny();
    return {
      model,
      texts,
      inputIsList: Array.isArray(this.input),
      dimensions,
      prompt,
      normalized: normalized ?? normalize ?? true,
      formats: [...new Set(Array.isArray(encodingFormat) ? encodingFormat : [encodingFormat])],
      encodingFormat,
      truncation,
    };
  }
}

/** The texts of `input`: a string, a text input, or a non-empty list of either. */
function inputTexts(p: Problems, input: unknown): string[] {
  const loc: Loc = ['body', 'input'];
  if (input === undefined || input === null) {
    p.add(loc, 'Field required', 'missing', input);
    return [];
  }
  if (!Array.isArray(input)) {
    const t = inputText(p, input, loc);
    return t === null ? [] : [t];
  }
  if (!input.length) p.add(loc, 'List should have at least 1 item after validation, not 0', 'too_short', input);
  if (input.length > MAX_EMBEDDING_INPUTS) {
    p.add(
      loc,
      `List should have at most ${MAX_EMBEDDING_INPUTS} items after validation, not ${input.length}`,
      'too_long',
      input.length,
    );
    return [];
  }
  if (
    input.length &&
    input.every((x) => typeof x === 'number' || (Array.isArray(x) && x.every((y) => typeof y === 'number')))
  ) {
    p.add(loc, 'Token ids are not accepted: send the text (this server tokenizes with its own model)', 'value_error');
    return [];
  }
  const out: string[] = [];
  input.forEach((x, i) => {
    const t = inputText(p, x, [...loc, i]);
    if (t !== null) out.push(t);
  });
  return out;
}

function inputText(p: Problems, x: unknown, loc: Loc): string | null {
  let text: unknown = x;
  let at = loc;
  if (isPlainObject(x)) {
    if ('image' in x || x.type === 'image_url' || x.type === 'image') {
      p.add(loc, 'Image inputs need a multimodal embedding model; this server embeds text only', 'value_error');
      return null;
    }
    if (x.type !== undefined && x.type !== null && x.type !== 'text') {
      p.add([...loc, 'type'], "Input should be 'text'", 'literal_error', x.type);
      return null;
    }
    text = x.text;
    at = [...loc, 'text'];
    if (text === undefined) {
      p.add(at, 'Field required', 'missing');
      return null;
    }
  }
  if (typeof text !== 'string') {
    p.add(at, 'Input should be a valid string or a text input {type: "text", text}', 'string_type', text);
    return null;
  }
  if (!text) {
    p.add(at, 'String should have at least 1 character', 'string_too_short', text);
    return null;
  }
  if (text.length > MAX_EMBEDDING_INPUT_CHARS) {
    p.add(at, `String should have at most ${MAX_EMBEDDING_INPUT_CHARS} characters`, 'string_too_long', text.length);
    return null;
  }
  return text;
}
