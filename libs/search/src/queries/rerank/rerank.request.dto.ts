import { Allow } from 'class-validator';
import { isPlainObject, Problems } from '@larder/kernel';

export const MAX_RERANK_DOCUMENTS = 1000;
export const MAX_RERANK_QUERY_CHARS = 32_000;

export interface RerankParams {
  /** As sent (null: the default reranking model). */
  model: string | null;
  query: string;
  /** The documents as sent (strings, objects or lists), returned with `return_input`. */
  inputs: unknown[];
  rankFields: string[] | null;
  /** null: all of them. */
  topK: number | null;
  returnInput: boolean;
}

/**
 * The body of `POST /v1/reranking` as the clients send it: `query` a string or a text input
 * `{type?: "text", text}` (@mixedbread-ai/sdk 2.x), `input` 1–1000 strings, objects or lists,
 * `rank_fields`, `top_k` (omitted, null or the OAS default −1: all), `return_input`, `model`
 * (`default` or omitted: the default reranking model), `rewrite_query` (only `false`). Absent
 * options may come as `null`.
 */
export class RerankRequestDto {
  @Allow() model?: unknown;
  @Allow() query?: unknown;
  @Allow() input?: unknown;
  @Allow() rank_fields?: unknown;
  @Allow() top_k?: unknown;
  @Allow() return_input?: unknown;
  @Allow() rewrite_query?: unknown;

  params(): RerankParams {
    const p = new Problems();
    const absent = (v: unknown) => v === undefined || v === null;

    let model: string | null = null;
    if (!absent(this.model)) {
      if (typeof this.model !== 'string' || !this.model || this.model.length > 500)
        p.add(['body', 'model'], 'Input should be a string of 1 to 500 characters', 'string_type', this.model);
      else model = this.model;
    }

    let query = '';
    const q = isPlainObject(this.query) ? this.query.text : this.query;
    const qLoc = isPlainObject(this.query) ? ['body', 'query', 'text'] : ['body', 'query'];
    if (
      isPlainObject(this.query) &&
      this.query.type !== undefined &&
      this.query.type !== null &&
      this.query.type !== 'text'
    ) {
      p.add(
        ['body', 'query', 'type'],
        "Input should be 'text' (this server ranks text only)",
        'literal_error',
        this.query.type,
      );
    } else if (absent(q)) p.add(qLoc, 'Field required', 'missing');
    else if (typeof q !== 'string')
      p.add(qLoc, 'Input should be a valid string or a text input {type: "text", text}', 'string_type', q);
    else if (!q.trim()) p.add(qLoc, 'String should have at least 1 character', 'string_too_short', q);
    else if (q.length > MAX_RERANK_QUERY_CHARS)
      p.add(qLoc, `String should have at most ${MAX_RERANK_QUERY_CHARS} characters`, 'string_too_long', q.length);
    else query = q;

    let inputs: unknown[] = [];
    if (absent(this.input)) p.add(['body', 'input'], 'Field required', 'missing');
    else if (!Array.isArray(this.input))
      p.add(['body', 'input'], 'Input should be a valid list', 'list_type', this.input);
    else if (!this.input.length)
      p.add(['body', 'input'], 'List should have at least 1 item after validation, not 0', 'too_short', this.input);
    else if (this.input.length > MAX_RERANK_DOCUMENTS)
      p.add(
        ['body', 'input'],
        `List should have at most ${MAX_RERANK_DOCUMENTS} items after validation, not ${this.input.length}`,
        'too_long',
        this.input.length,
      );
    else {
      this.input.forEach((d, i) => {
        if (typeof d !== 'string' && !isPlainObject(d) && !Array.isArray(d))
          p.add(['body', 'input', i], 'Input should be a string, an object or a list', 'value_error', d);
      });
      inputs = this.input;
    }

    let rankFields: string[] | null = null;
    if (!absent(this.rank_fields)) {
      if (!Array.isArray(this.rank_fields))
        p.add(['body', 'rank_fields'], 'Input should be a valid list', 'list_type', this.rank_fields);
      else {
        this.rank_fields.forEach((f, i) => {
          if (typeof f !== 'string' || !f)
            p.add(
              ['body', 'rank_fields', i],
              'Input should be a field name (a non-empty string; dots reach into nested objects)',
              'string_type',
              f,
            );
        });
        rankFields = this.rank_fields as string[];
      }
    }

    let topK: number | null = null;
    if (!absent(this.top_k)) {
      if (typeof this.top_k !== 'number' || !Number.isInteger(this.top_k))
        p.add(['body', 'top_k'], 'Input should be a valid integer', 'int_type', this.top_k);
      else if (this.top_k < 1 && this.top_k !== -1)
        p.add(
          ['body', 'top_k'],
          'Input should be greater than or equal to 1 (or -1: all)',
          'greater_than_equal',
          this.top_k,
        );
      else topK = this.top_k === -1 ? null : this.top_k;
    }

    const flag = (v: unknown, field: string): boolean => {
      if (absent(v)) return false;
      if (typeof v !== 'boolean') p.add(['body', field], 'Input should be a valid boolean', 'bool_type', v);
      return v === true;
    };
    const returnInput = flag(this.return_input, 'return_input');
    if (flag(this.rewrite_query, 'rewrite_query')) {
      p.add(
        ['body', 'rewrite_query'],
        'Query rewriting before reranking is not offered by this server: send the query you want ranked (rewrite_query false)',
        'value_error',
        true,
      );
    }

    p.throwIfAny();
    return { model, query, inputs, rankFields, topK, returnInput };
  }
}
