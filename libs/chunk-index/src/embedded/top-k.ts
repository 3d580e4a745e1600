/**
 * The k best of a stream of (id, score): a fixed-capacity min-heap whose root is the worst kept, best
 * meaning the higher score, then the lower id (so a tie is decided by id, whatever the order of the
 * stream). Used by the dense scans (ivf.ts, the exact scan) and by every lexical ranker.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Float64Array;
  private size = 0;

  constructor(readonly k: number) {
    const capacity = Math.max(0, k);
    this.scores = new Float64Array(capacity);
    this.ids = new Float64Array(capacity);
  }

  /** Whether k are kept (a chunk must then beat the worst of them). */
  get full(): boolean {
    return this.size >= this.k;
  }

  /** The worst score kept once full; -Infinity before. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0];
  }

  /** Offers a chunk; answers whether it was kept. */
  push(id: number, score: number): boolean {
    const { scores, ids } = this;
    if (this.k <= 0) return false;
    if (this.size < this.k) {
      // sift the new entry up from the end: its parents that are worse move down
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >>> 1;
        if (!(score < scores[p] || (score === scores[p] && id > ids[p]))) break;
        scores[i] = scores[p];
        ids[i] = ids[p];
        i = p;
      }
      scores[i] = score;
      ids[i] = id;
      return true;
    }
    if (!(score > scores[0] || (score === scores[0] && id < ids[0]))) return false;
    // replace the root and sift down: the worse child moves up while it is worse than the entry
    const size = this.size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      const c = r < size && (scores[r] < scores[l] || (scores[r] === scores[l] && ids[r] > ids[l])) ? r : l;
      if (!(scores[c] < score || (scores[c] === score && ids[c] > id))) break;
      scores[i] = scores[c];
      ids[i] = ids[c];
      i = c;
    }
    scores[i] = score;
    ids[i] = id;
    return true;
  }

  /** The entries kept, best first (score desc, then id asc). */
  sorted(): Array<{ id: number; score: number }> {
    const out = Array.from({ length: this.size }, (_, i) => ({ id: this.ids[i], score: this.scores[i] }));
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }
}
