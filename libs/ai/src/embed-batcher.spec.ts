import { EmbedBatcher } from './embed-batcher';
import { EmbeddingError } from './embedder.port';

/** An embedder that answers each text's length as its one-dimensional vector, once released, and records its batches. */
function recordingEmbedder(batchSize: number, fail: (text: string) => boolean = () => false) {
  const batches: string[][] = [];
  const gates: Array<() => void> = [];
  let running = 0;
  let mostAtOnce = 0;
  return {
    batchSize,
    batches,
    get mostAtOnce() {
      return mostAtOnce;
    },
    /** Lets the oldest held batch answer. */
    release() {
      gates.shift()?.();
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      batches.push(texts);
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise<void>((r) => gates.push(r));
      running--;
      if (texts.some(fail)) throw new EmbeddingError('bad input', false);
      return texts.map((t) => Float32Array.of(t.length));
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));
const lengths = (vs: Float32Array[]) => vs.map((v) => v[0]);

describe('EmbedBatcher', () => {
  it('sends at once while a lane is free, gathers what comes meanwhile into full batches, and answers each caller in order', async () => {
    const e = recordingEmbedder(4);
    const b = new EmbedBatcher(e, 1);
    const first = b.embed(['a']);
    await tick();
    expect(e.batches).toEqual([['a']]);
    const second = b.embed(['bb', 'ccc']);
    const third = b.embed(['dddd', 'eeeee', 'ffffff']);
    expect(b.waiting).toBe(5);
    e.release();
    expect(lengths(await first)).toEqual([1]);
    await tick();
    // the next batch is full: both waiting callers' texts, cut at the batch size
    expect(e.batches[1]).toEqual(['bb', 'ccc', 'dddd', 'eeeee']);
    e.release();
    await tick();
    expect(e.batches[2]).toEqual(['ffffff']);
    e.release();
    expect(lengths(await second)).toEqual([2, 3]);
    expect(lengths(await third)).toEqual([4, 5, 6]);
    await tick();
    expect(b.waiting).toBe(0);
    expect(b.inFlight).toBe(0);
  });

  it('runs as many batches at once as it has lanes, never more', async () => {
    const e = recordingEmbedder(2);
    const b = new EmbedBatcher(e, 2);
    const all = Promise.all([b.embed(['a', 'b', 'c', 'd', 'e', 'f', 'g'])]);
    await tick();
    expect(e.batches).toHaveLength(2);
    for (let i = 0; i < 4; i++) {
      e.release();
      await tick();
      await tick();
    }
    const [vectors] = await all;
    expect(vectors).toHaveLength(7);
    expect(e.mostAtOnce).toBe(2);
    expect(e.batches.map((x) => x.length)).toEqual([2, 2, 2, 1]);
  });

  it("fails only the caller whose text failed a shared batch; the others' texts are embedded again on their own", async () => {
    const e = recordingEmbedder(8, (t) => t === 'poison');
    const b = new EmbedBatcher(e, 1);
    const lead = b.embed(['x']);
    await tick();
    const good = b.embed(['ok', 'fine']);
    const bad = b.embed(['poison', 'more']);
    e.release(); // 'x'
    await lead;
    await tick();
    expect(e.batches[1]).toEqual(['ok', 'fine', 'poison', 'more']);
    e.release(); // the shared batch fails
    await tick();
    expect(e.batches[2]).toEqual(['ok', 'fine']);
    e.release();
    await tick();
    expect(e.batches[3]).toEqual(['poison', 'more']);
    e.release();
    expect(lengths(await good)).toEqual([2, 4]);
    await expect(bad).rejects.toThrow('bad input');
    expect(b.waiting).toBe(0);
  });

  it('reports every answered batch: its texts and its time', async () => {
    const e = recordingEmbedder(3);
    const b = new EmbedBatcher(e, 1);
    const seen: Array<{ texts: number; seconds: number }> = [];
    b.onBatch((t) => seen.push(t));
    const done = b.embed(['a', 'b', 'c', 'd']);
    for (let i = 0; i < 2; i++) {
      await tick();
      e.release();
    }
    await done;
    expect(seen.map((s) => s.texts)).toEqual([3, 1]);
    expect(seen.every((s) => s.seconds >= 0)).toBe(true);
  });

  it('answers no texts with no vectors, without calling the model', async () => {
    const e = recordingEmbedder(3);
    await expect(new EmbedBatcher(e, 1).embed([])).resolves.toEqual([]);
    expect(e.batches).toHaveLength(0);
  });
});
