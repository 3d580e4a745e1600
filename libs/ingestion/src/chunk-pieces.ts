/** The pieces a document is cut into before packing: oversized blocks split, PDF pages cleaned and re-flowed. */
import { Block, estimateTokens, Heading, ParsedDocument } from './document';

/** A block, or a part of one, packed into chunks: `offset` and the lines are those of its own text. */
export interface Piece {
  text: string;
  tokens: number;
  block: Block;
  headings: Heading[];
  offset: number;
  startLine: number;
  endLine: number;
}

/** Sentences (with what ends them), or runs of newlines: every character of the text is in one. */
const SENTENCE = /[^.!?\n]*(?:[.!?]+["'”’)]*\s*|\n+|$)/g;

const newlines = (s: string) => {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
};

/** Cuts an oversized text into parts under the budget, by sentences or by lines (words when one alone is too long); `at`: where each part begins in `text`. */
export function splitOversized(
  text: string,
  maxTokens: number,
  bySentence: boolean,
): Array<{ text: string; at: number }> {
  const units = bySentence ? (text.match(SENTENCE) ?? [text]) : text.split(/(?<=\n)/);
  const out: Array<{ text: string; at: number }> = [];
  const push = (s: string, at: number) => {
    if (s.trim()) out.push({ text: s.trim(), at: at + s.length - s.trimStart().length });
  };
  let cur = '';
  let curAt = 0;
  let pos = 0;
  for (const u of units) {
    if (estimateTokens(u) > maxTokens) {
      push(cur, curAt);
      cur = '';
      let w = '';
      let wAt = pos;
      for (const x of u.split(/(\s+)/)) {
        if (estimateTokens(w + x) > maxTokens && w.trim()) {
          push(w, wAt);
          wAt += w.length;
          w = '';
        }
        w += x;
      }
      if (w.trim()) [cur, curAt] = [w, wAt];
      pos += u.length;
      continue;
    }
    if (estimateTokens(cur + u) > maxTokens && cur.trim()) {
      push(cur, curAt);
      cur = '';
    }
    if (!cur) curAt = pos;
    cur += u;
    pos += u.length;
  }
  push(cur, curAt);
  return out;
}

/** The piece of `block` that is its text from `at` on (`text` long): its offset and lines in the document. */
export function pieceOf(block: Block, text: string, at: number, headings: Heading[]): Piece {
  const startLine = block.startLine > 0 ? block.startLine + newlines(block.text.slice(0, at)) : 0;
  return {
    text,
    tokens: estimateTokens(text),
    block,
    headings,
    offset: block.offset + at,
    startLine,
    endLine: startLine > 0 ? startLine + newlines(text) : 0,
  };
}

/** Removes lines repeated at the top or bottom of most PDF pages and joins hyphenated line breaks. */
export function cleanPdf(blocks: Block[]): Block[] {
  const pages = new Map<number, Block[]>();
  for (const b of blocks) pages.set(b.page ?? 0, [...(pages.get(b.page ?? 0) ?? []), b]);
  const counts = new Map<string, number>();
  for (const bs of pages.values()) {
    for (const t of new Set([bs[0]?.text, bs[bs.length - 1]?.text].filter((x): x is string => !!x)))
      counts.set(t.replace(/\d+/g, '#'), (counts.get(t.replace(/\d+/g, '#')) ?? 0) + 1);
  }
  const repeated = new Set(
    [...counts].filter(([, n]) => pages.size >= 3 && n >= Math.ceil(pages.size * 0.6)).map(([t]) => t),
  );
  const kept = blocks.filter((b) => !repeated.has(b.text.replace(/\d+/g, '#')));
  // Re-flow lines into paragraphs: a line that ends a sentence and is clearly shorter than the page's
  // longest line ends its paragraph; hyphenated line breaks are joined.
  const longest = new Map<number, number>();
  for (const b of kept) longest.set(b.page ?? 0, Math.max(longest.get(b.page ?? 0) ?? 0, b.text.length));
  const out: Block[] = [];
  let open = false;
  for (const b of kept) {
    const prev = out[out.length - 1];
    if (open && prev && prev.page === b.page) {
      prev.text = /\p{L}-$/u.test(prev.text) ? prev.text.slice(0, -1) + b.text : `${prev.text} ${b.text}`;
    } else {
      out.push({ ...b });
    }
    open = !(/[.!?:]["'”’)]?$/.test(b.text) && b.text.length < 0.8 * (longest.get(b.page ?? 0) ?? 0));
  }
  return out;
}

/** A block as it is written into a chunk (Markdown headings with their `#`s). */
export const rendered = (doc: ParsedDocument, b: Block, text: string) =>
  b.kind === 'heading' && doc.kind === 'markdown' ? `${'#'.repeat(b.level ?? 1)} ${text}` : text;
