import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { onnx } from 'onnx-proto';

const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;

/** A graph input or output: `dims` are named (dynamic) or fixed sizes. */
const valueInfo = (name: string, elemType: number, dims: Array<string | number>) =>
  onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  });
const node = (opType: string, input: string[], output: string, attribute: onnx.IAttributeProto[] = []) =>
  onnx.NodeProto.create({ opType, input, output: [output], attribute });
/** A float tensor of shape `dims` holding `values`. */
const floatTable = (name: string, dims: number[], values: Float32Array) =>
  onnx.TensorProto.create({ name, dataType: T.FLOAT, dims, rawData: new Uint8Array(values.buffer.slice(0)) });
/** The one-axis INT64 tensor an `Unsqueeze` or a `ReduceSum` takes. */
const axes = (name: string, axis: number) =>
  onnx.TensorProto.create({ name, dataType: T.INT64, dims: [1], int64Data: [axis] });

/** Writes `graph` as `onnx/model.onnx` with a BERT `config.json` (`config` added) and the tokenizer files. */
function writeModelDir(
  dir: string,
  graph: onnx.IGraphProto,
  vocab: string[],
  maxLength: number,
  config: Record<string, unknown>,
): void {
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'larder-tests',
    opsetImport: [{ domain: '', version: 17 }],
    graph,
  });
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ model_type: 'bert', ...config, vocab_size: vocab.length, max_position_embeddings: maxLength }),
  );
  writeTokenizer(dir, vocab, maxLength);
}

/**
 * Writes a tiny BERT-shaped sentence-embedding model directory, in the layout of a Hugging Face ONNX
 * export (`config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx`), so that the
 * ONNX embedder is tested offline against the real runtime and tokenizer without shipping weights.
 *
 * The graph is `last_hidden_state = Embedding[input_ids] * attention_mask` (a Gather and a masked
 * multiply over a [vocab, dim] table of deterministic values): meaningless as semantics, exact as a
 * shape and pooling check (padding must not change a sentence's vector).
 */
export function writeTinyOnnxModel(
  dir: string,
  vocabulary: string[],
  dimensions = 16,
): { vocab: string[]; table: Float32Array } {
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', ...vocabulary];
  const table = new Float32Array(vocab.length * dimensions);
  let seed = 12345;
  for (let i = 0; i < table.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    table[i] = (seed / 2147483648) * 2 - 1;
  }
  for (let d = 0; d < dimensions; d++) table[d] = 0; // [PAD] is all zeros

  const graph = onnx.GraphProto.create({
    name: 'tiny-embedder',
    node: [
      node('Gather', ['embeddings', 'input_ids'], 'gathered', [{ name: 'axis', type: A.INT, i: 0 }]),
      node('Cast', ['attention_mask'], 'mask_f', [{ name: 'to', type: A.INT, i: T.FLOAT }]),
      node('Unsqueeze', ['mask_f', 'axes'], 'mask_3d'),
      node('Mul', ['gathered', 'mask_3d'], 'last_hidden_state'),
    ],
    initializer: [floatTable('embeddings', [vocab.length, dimensions], table), axes('axes', 2)],
    input: ['input_ids', 'attention_mask'].map((name) => valueInfo(name, T.INT64, ['batch', 'sequence'])),
    output: [valueInfo('last_hidden_state', T.FLOAT, ['batch', 'sequence', dimensions])],
  });
  writeModelDir(dir, graph, vocab, 512, { architectures: ['BertModel'], hidden_size: dimensions });
  return { vocab, table };
}

/** The tokenizer files of a Hugging Face BERT export (WordPiece over `vocab`, lowercased, [CLS] A [SEP] B [SEP] pairs). */
function writeTokenizer(dir: string, vocab: string[], maxLength: number): void {
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: maxLength,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]'].map((content, id) => ({
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: {
        type: 'BertNormalizer',
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
        ],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: {
          '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
          '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
        },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab.map((w, i) => [w, i])),
      },
    }),
  );
}

/**
 * Writes a tiny BERT-shaped cross-encoder (sequence classification, one logit) in the layout of a
 * Hugging Face ONNX export, so that the ONNX reranker is tested offline against the real runtime and
 * tokenizer. The graph scores a pair by word overlap: with A the set of (non-special) vocabulary
 * words among the query's tokens (`token_type_ids` 0) and B the document's (1),
 * `logit = 2 · |A ∩ B| − 1` over the attended tokens. A document that shares more of the query's
 * words scores higher; padding and truncated words count for nothing.
 */
export function writeTinyCrossEncoder(dir: string, vocabulary: string[], maxLength = 512): { vocab: string[] } {
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', ...vocabulary];
  const V = vocab.length;
  const eye = new Float32Array(V * V);
  for (let i = 4; i < V; i++) eye[i * V + i] = 1; // special tokens map to the zero vector
  const scalar = (name: string, v: number) =>
    onnx.TensorProto.create({ name, dataType: T.FLOAT, dims: [], floatData: [v] });
  const graph = onnx.GraphProto.create({
    name: 'tiny-cross-encoder',
    node: [
      node('Gather', ['eye', 'input_ids'], 'one_hot', [{ name: 'axis', type: A.INT, i: 0 }]),
      node('Cast', ['attention_mask'], 'mask', [{ name: 'to', type: A.INT, i: T.FLOAT }]),
      node('Cast', ['token_type_ids'], 'types', [{ name: 'to', type: A.INT, i: T.FLOAT }]),
      node('Mul', ['mask', 'types'], 'mask_b'),
      node('Sub', ['mask', 'mask_b'], 'mask_a'),
      node('Unsqueeze', ['mask_a', 'axis2'], 'mask_a3'),
      node('Unsqueeze', ['mask_b', 'axis2'], 'mask_b3'),
      node('Mul', ['one_hot', 'mask_a3'], 'words_a3'),
      node('Mul', ['one_hot', 'mask_b3'], 'words_b3'),
      node('ReduceMax', ['words_a3'], 'words_a', [
        { name: 'axes', type: A.INTS, ints: [1] },
        { name: 'keepdims', type: A.INT, i: 0 },
      ]),
      node('ReduceMax', ['words_b3'], 'words_b', [
        { name: 'axes', type: A.INTS, ints: [1] },
        { name: 'keepdims', type: A.INT, i: 0 },
      ]),
      node('Mul', ['words_a', 'words_b'], 'shared'),
      node('ReduceSum', ['shared', 'axis1'], 'overlap', [{ name: 'keepdims', type: A.INT, i: 1 }]),
      node('Mul', ['overlap', 'two'], 'doubled'),
      node('Sub', ['doubled', 'one'], 'logits'),
    ],
    initializer: [
      floatTable('eye', [V, V], eye),
      axes('axis2', 2),
      axes('axis1', 1),
      scalar('two', 2),
      scalar('one', 1),
    ],
    input: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) =>
      valueInfo(name, T.INT64, ['batch', 'sequence']),
    ),
    output: [valueInfo('logits', T.FLOAT, ['batch', 1])],
  });
  writeModelDir(dir, graph, vocab, maxLength, {
    architectures: ['BertForSequenceClassification'],
    num_labels: 1,
    id2label: { 0: 'LABEL_0' },
    label2id: { LABEL_0: 0 },
  });
  return { vocab };
}
