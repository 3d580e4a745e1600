/**
 * The hand-written request bodies of the model endpoints: `POST /v1/embeddings` and `POST /v1/reranking`.
 */

const textInput = {
  type: 'object',
  required: ['text'],
  properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1 } },
};
const encodingFormat = { enum: ['float', 'float16', 'base64', 'binary', 'ubinary', 'int8', 'uint8'] };

/** The bodies of embedding and reranking requests. */
export const MODEL_REQUESTS: Record<string, unknown> = {
  /** `POST /v1/embeddings`: Mixedbread's body (`model`, `input`, `dimensions`, `prompt`, `normalized`, `encoding_format`, `truncation_strategy`) and OpenAI's (`input`, `model`, `encoding_format`, `dimensions`, `user`). */
  EmbeddingCreateParams: {
    type: 'object',
    required: ['model', 'input'],
    properties: {
      model: {
        type: 'string',
        minLength: 1,
        maxLength: 500,
        description: 'a served model (GET /v1/models), an alias of one (LARDER_MODEL_ALIASES), or "default"',
      },
      input: {
        oneOf: [
          { type: 'string', minLength: 1, maxLength: 64000 },
          textInput,
          {
            type: 'array',
            minItems: 1,
            maxItems: 2048,
            items: { oneOf: [{ type: 'string', minLength: 1, maxLength: 64000 }, textInput] },
          },
        ],
      },
      dimensions: {
        type: ['integer', 'null'],
        minimum: 1,
        description: "keep the first n values (at most the model's), renormalized when `normalized`",
      },
      prompt: { type: ['string', 'null'], minLength: 1, maxLength: 32000, description: 'prepended to every input' },
      normalized: { type: ['boolean', 'null'], default: true },
      normalize: {
        type: ['boolean', 'null'],
        description: 'the same as `normalized` (the Vercel AI provider sends this name)',
      },
      encoding_format: {
        oneOf: [encodingFormat, { type: 'array', minItems: 1, items: encodingFormat }, { type: 'null' }],
        default: 'float',
        description: 'several formats → `embedding_dict` items',
      },
      truncation_strategy: { oneOf: [{ enum: ['start', 'end', 'none'] }, { type: 'null' }], default: 'end' },
      user: { type: ['string', 'null'], description: "OpenAI's end-user id: accepted, not stored" },
    },
  },
  /** `POST /v1/reranking`: a query, the documents to order, `top_k`, `return_input`. */
  RerankParams: {
    type: 'object',
    required: ['query', 'input'],
    properties: {
      model: {
        type: ['string', 'null'],
        default: 'default',
        description: 'a served reranking model, an alias of one, or "default"',
      },
      query: { oneOf: [{ type: 'string', minLength: 1, maxLength: 32000 }, textInput] },
      input: {
        type: 'array',
        minItems: 1,
        maxItems: 1000,
        items: { oneOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }] },
      },
      rank_fields: {
        type: ['array', 'null'],
        items: { type: 'string', minLength: 1 },
        description: 'fields of object inputs to rank on (dots reach into nested objects)',
      },
      top_k: { type: ['integer', 'null'], minimum: -1, description: 'how many results; omitted, null or -1: all' },
      return_input: { type: ['boolean', 'null'], default: false },
      rewrite_query: { type: ['boolean', 'null'], enum: [false, null], default: false },
    },
  },
};
