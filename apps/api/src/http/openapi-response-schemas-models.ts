/**
 * The response schemas of the model endpoints: chat completions, responses, models, embeddings and reranking.
 */

import {
  any,
  arr,
  bool,
  deleted,
  int,
  lit,
  nullable,
  num,
  obj,
  oneOfEnum,
  openAiList,
  ref,
  Schema,
  str,
} from './openapi-schema-builders';

const usage = obj({ prompt_tokens: int, total_tokens: int }, { completion_tokens: int });

/** The schemas of chat completions, responses, models, embeddings and reranking. */
export const MODEL_RESPONSE_SCHEMAS: Record<string, Schema> = {
  ChatCompletion: obj(
    {
      id: str,
      object: lit('chat.completion'),
      created: int,
      model: str,
      choices: arr(
        obj({
          index: int,
          message: obj(
            { role: lit('assistant'), content: nullable(str) },
            { tool_calls: nullable(arr({ type: 'object' })) },
          ),
          finish_reason: nullable(str),
        }),
      ),
    },
    { usage: nullable(usage) },
  ),
  Response: obj(
    {
      id: str,
      object: lit('response'),
      created_at: int,
      status: oneOfEnum('completed', 'incomplete', 'in_progress', 'failed'),
      model: str,
      output: arr(obj({ id: str, type: str })),
    },
    {
      usage: nullable(obj({ input_tokens: int, output_tokens: int, total_tokens: int })),
      previous_response_id: nullable(str),
      tools: arr({ type: 'object' }),
    },
  ),
  ResponseDeleted: deleted('response'),
  ResponseInputItem: obj({ id: str, type: oneOfEnum('message', 'function_call', 'function_call_output') }),
  ResponseInputItemList: openAiList('ResponseInputItem'),
  Model: obj(
    { id: str, object: lit('model'), created: int, owned_by: str },
    { type: str, default: bool, aliases: arr(str), dimensions: nullable(int) },
  ),
  ModelList: obj({ object: lit('list'), data: arr(ref('Model')) }),
  EmbeddingResponse: obj({
    object: lit('list'),
    model: str,
    data: arr(obj({ object: { enum: ['embedding', 'embedding_dict'] }, index: int, embedding: any })),
    usage,
    normalized: bool,
    encoding_format: { anyOf: [str, arr(str)] },
    dimensions: nullable(int),
  }),
  RerankResponse: obj({
    object: lit('list'),
    model: str,
    data: arr(obj({ object: lit('rank_result'), index: int, score: num }, { input: any })),
    usage,
    top_k: int,
    return_input: bool,
  }),
};
