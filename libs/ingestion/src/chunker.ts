/** Packs a parsed document into chunks; the modes, sizes and chunk shape it uses are re-exported from ./chunking. */
import { estimateTokens, Heading, ParsedDocument } from './document';
import { Chunk, CHUNKING, ChunkingMode, ChunkSizes, MAX_CHUNK_SIZE, MEDIA_WINDOW_SECONDS } from './chunking';
import { cleanPdf, Piece, pieceOf, rendered, splitOversized } from './chunk-pieces';
import { makeChunk } from './chunk-builder';

export * from './chunking';

/**
 * Packs a parsed document into chunks under the token budget (the mode's, or `sizes`), respecting
 * block boundaries: every chunk's text, a repeated prefix (a CSV header) included, is at most the
 * budget, unless one heading or one word alone is longer or the prefix leaves less than 16. The mode
 * still decides how blocks are cut (sentences or lines) and what is embedded. A chunk of a recording
 * (timed blocks, in time order) also covers at most `MEDIA_WINDOW_SECONDS` unless one block is longer.
 */
export function chunkDocument(
  doc: ParsedDocument,
  mode: ChunkingMode,
  filename: string,
  sizes?: ChunkSizes | null,
): Chunk[] {
  const { maxTokens, overlapTokens } = sizes ?? CHUNKING[mode];
  const prefix = doc.chunkPrefix ? `${doc.chunkPrefix}\n` : '';
  const budget = Math.max(MAX_CHUNK_SIZE.min / 2, maxTokens - estimateTokens(prefix));
  const blocks = mode === 'high_quality' && doc.kind === 'pdf' ? cleanPdf(doc.blocks) : doc.blocks;

  // Headings open sections; every other block becomes one or more pieces under the current heading path.
  const pieces: Piece[] = [];
  const path: Heading[] = [];
  for (const b of blocks) {
    if (b.kind === 'heading') {
      while (path.length && path[path.length - 1].level >= (b.level ?? 1)) path.pop();
      path.push({ level: b.level ?? 1, text: b.text });
      const tokens = estimateTokens(rendered(doc, b, b.text));
      pieces.push({
        text: b.text,
        tokens,
        block: b,
        headings: [...path],
        offset: b.offset,
        startLine: b.startLine,
        endLine: b.endLine,
      });
      continue;
    }
    const tokens = estimateTokens(b.text);
    const parts =
      tokens > budget
        ? splitOversized(b.text, budget, mode === 'high_quality' && b.kind !== 'code' && b.kind !== 'definition')
        : [{ text: b.text, at: 0 }];
    for (const t of parts) pieces.push(pieceOf(b, t.text, t.at, [...path]));
  }

  const chunks: Chunk[] = [];
  let cur: Piece[] = [];
  let curTokens = 0;
  let fresh = 0; // pieces in `cur` not carried over from the previous chunk
  const emit = () => {
    if (!fresh) return;
    chunks.push(makeChunk(doc, cur, chunks.length, prefix, filename, mode));
    // Overlap: carry the tail of this chunk (whole pieces, never headings alone) into the next one.
    const carry: Piece[] = [];
    let carried = 0;
    for (let i = cur.length - 1; i > 0; i--) {
      if (carried + cur[i].tokens > overlapTokens || cur[i].block.kind === 'heading') break;
      carry.unshift(cur[i]);
      carried += cur[i].tokens;
    }
    if (!carry.length && overlapTokens > 0) {
      const last = cur[cur.length - 1];
      if (last.block.kind !== 'heading' && last.block.kind !== 'definition' && last.block.kind !== 'row') {
        // the last words, as the text has them: word k begins after the k-th run of whitespace
        const gaps = [...last.text.matchAll(/\s+/g)];
        const k = Math.max(1, gaps.length + 1 - Math.floor(overlapTokens * 0.75));
        const at = k <= gaps.length ? gaps[k - 1].index + gaps[k - 1][0].length : last.text.length;
        const tail = last.text.slice(at);
        if (tail.trim() && tail !== last.text) {
          const start = last.offset - last.block.offset;
          carry.push(pieceOf(last.block, tail, start + at, last.headings));
          carried += carry[0].tokens;
        }
      }
    }
    cur = carry;
    curTokens = carried;
    fresh = 0;
  };
  // a recording's chunk covers at most a window of time: from its first block's start to this piece's end
  const tooLong = (p: Piece) =>
    doc.media !== undefined &&
    cur.length > 0 &&
    (p.block.endSeconds ?? 0) - (cur[0].block.startSeconds ?? 0) > MEDIA_WINDOW_SECONDS;
  for (const p of pieces) {
    const startsSection =
      p.block.kind === 'heading' && cur.some((x) => x.block.kind !== 'heading') && curTokens > budget / 3;
    if ((curTokens + p.tokens > budget && fresh) || startsSection || (tooLong(p) && fresh)) {
      emit();
      if (p.block.kind === 'heading') {
        cur = [];
        curTokens = 0;
      }
    }
    if (!fresh && (curTokens + p.tokens > budget || tooLong(p))) {
      cur = []; // the overlap would push this piece over the budget or the window: start clean
      curTokens = 0;
    }
    cur.push(p);
    curTokens += p.tokens;
    fresh++;
  }
  emit();
  return chunks;
}
