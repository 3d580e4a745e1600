import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { onnx } from 'onnx-proto';

/**
 * Writes a tiny BERT-shaped sentence-embedding model directory, in the layout of a Hugging Face ONNX
 * export (`config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx`), so that the
 * ONNX embedder is tested offline against the real runtime and tokenizer without shipping weights.
 *
 * The graph is `last_hidden_state = Embedding[input_ids] * attention_mask` (a Gather and a masked
 * multiply over a [vocab, dim] table of deterministic values): meaningless as semantics, exact as a
 * shape and pooling check (padding must not change a sentence's vector).
 */
export function writeTinyOnnxModel(dir: string, vocabulary: string[], dimensions = 16): { vocab: string[]; table: Float32Array } {
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', ...vocabulary];
  const table = new Float32Array(vocab.length * dimensions);
  let seed = 12345;
  for (let i = 0; i < table.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    table[i] = (seed / 2147483648) * 2 - 1;
  }
  for (let d = 0; d < dimensions; d++) table[d] = 0; // [PAD] is all zeros

  const T = onnx.TensorProto.DataType;
  const valueInfo = (name: string, elemType: number, dims: Array<string | number>) =>
    onnx.ValueInfoProto.create({
      name,
      type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
    });
  const graph = onnx.GraphProto.create({
    name: 'tiny-embedder',
    node: [
      onnx.NodeProto.create({ opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['gathered'], attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] }),
      onnx.NodeProto.create({ opType: 'Cast', input: ['attention_mask'], output: ['mask_f'], attribute: [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: T.FLOAT }] }),
      onnx.NodeProto.create({ opType: 'Unsqueeze', input: ['mask_f', 'axes'], output: ['mask_3d'] }),
      onnx.NodeProto.create({ opType: 'Mul', input: ['gathered', 'mask_3d'], output: ['last_hidden_state'] }),
    ],
    initializer: [
      onnx.TensorProto.create({ name: 'embeddings', dataType: T.FLOAT, dims: [vocab.length, dimensions], rawData: new Uint8Array(table.buffer.slice(0)) }),
      onnx.TensorProto.create({ name: 'axes', dataType: T.INT64, dims: [1], int64Data: [2] }),
    ],
    input: [valueInfo('input_ids', T.INT64, ['batch', 'sequence']), valueInfo('attention_mask', T.INT64, ['batch', 'sequence'])],
    output: [valueInfo('last_hidden_state', T.FLOAT, ['batch', 'sequence', dimensions])],
  });
  const model = onnx.ModelProto.create({ irVersion: 8, producerName: 'larder-tests', opsetImport: [{ domain: '', version: 17 }], graph });

  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: dimensions, vocab_size: vocab.length, max_position_embeddings: 512 }));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]' }),
  );
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]'].map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab.map((w, i) => [w, i])) },
    }),
  );
  return { vocab, table };
}
