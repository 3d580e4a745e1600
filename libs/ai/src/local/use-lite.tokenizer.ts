import { readFileSync } from 'fs';

interface TrieNode {
  children: Map<number, TrieNode>;
  /** vocabulary index of the piece ending here, or -1 */
  index: number;
  score: number;
}

const SEPARATOR = 0x2581; // ▁
const RESERVED_SYMBOLS = 6;

/**
 * The SentencePiece (unigram, Viterbi) tokenizer of `@energetic-ai/embeddings` / tfjs-models' USE,
 * rewritten to give the very same ids without its quadratic copying: the same NFKC normalization,
 * the same trie walk, the same tie-breaking (`>=`, a best score of exactly 0 counts as unset), the
 * same unknown-piece fallback (id 0, runs of it merged).
 *
 * `encode(text, max)` returns the first `max` ids. The vocabulary's pieces hold `▁` only at their
 * start, so every segmentation passes through each `▁`, and the ids of a prefix cut just before a `▁`
 * are a prefix of the text's ids (the Viterbi scores up to the cut are computed identically): long
 * texts are tokenized by growing prefixes until `max` ids are known.
 */
export class UseLiteTokenizer {
  private readonly root: TrieNode = { children: new Map(), index: -1, score: 0 };
  /** UTF-16 length of each piece, which the original's backtracking steps by */
  private readonly lengths: Int32Array;

  constructor(vocabulary: [string, number][]) {
    this.lengths = new Int32Array(vocabulary.length);
    for (let i = 0; i < vocabulary.length; i++) this.lengths[i] = vocabulary[i][0].length;
    for (let i = RESERVED_SYMBOLS; i < vocabulary.length; i++) {
      const [piece, score] = vocabulary[i];
      if (piece.indexOf('\u2581', 1) >= 0) throw new Error(`vocabulary piece ${i} holds ▁ past its start`);
      let node = this.root;
      for (const ch of piece) {
        const c = ch.codePointAt(0)!;
        let next = node.children.get(c);
        if (!next) node.children.set(c, (next = { children: new Map(), index: -1, score: 0 }));
        node = next;
      }
      node.index = i;
      node.score = score;
    }
  }

  static fromFile(vocabJson: string): UseLiteTokenizer {
    return new UseLiteTokenizer(JSON.parse(readFileSync(vocabJson, 'utf8')) as [string, number][]);
  }

  encode(text: string, max = Infinity): number[] {
    const normalized = text.normalize('NFKC');
    if (!normalized.length) return [];
    const symbols: number[] = [SEPARATOR];
    for (const ch of normalized) symbols.push(ch === ' ' ? SEPARATOR : ch.codePointAt(0)!);
    let cut = 1024;
    for (;;) {
      if (cut >= symbols.length) return this.viterbi(symbols, symbols.length).slice(0, max);
      let end = cut;
      while (end < symbols.length && symbols[end] !== SEPARATOR) end++;
      const ids = this.viterbi(symbols, end);
      if (ids.length >= max || end >= symbols.length) return ids.slice(0, max);
      cut *= 2;
    }
  }

  /**
   * The ids of symbols[0, length), exactly as the original's encode. The original collects every
   * piece ending at each position and relaxes them by ascending start; relaxing each piece as the walk
   * from its start finds it visits them in that very order, with each start's best score already final.
   */
  private viterbi(symbols: number[], length: number): number[] {
    const best = new Float64Array(length + 1);
    const words = new Int32Array(length + 1);
    const relax = (end: number, score: number, index: number): void => {
      if (best[end] === 0 || score >= best[end]) {
        best[end] = score;
        words[end] = index;
      }
    };
    for (let i = 0; i < length; i++) {
      let node = this.root.children.get(symbols[i]);
      let found = false;
      for (let j = i; j < length && node; j++) {
        if (node.index >= 0) {
          relax(j + 1, node.score + best[i], node.index);
          found = true;
        }
        node = j + 1 < length ? node.children.get(symbols[j + 1]) : undefined;
      }
      if (!found) relax(i + 1, best[i], 0);
    }
    const reversed: number[] = [];
    for (let iter = length; iter > 0; iter -= this.lengths[words[iter]]) reversed.push(words[iter]);
    const ids: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === 0)) ids.push(id);
      previousUnknown = id === 0;
    }
    return ids.reverse();
  }
}
