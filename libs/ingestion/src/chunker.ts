import { Block, estimateTokens, Heading, ParsedDocument, countWords } from './document';
import { GeneratedMetadata } from './generated-metadata';

export type ChunkingMode = 'fast' | 'high_quality';

/**
 * The two parsing strategies (docs/api.md, "Parsing strategies"):
 * - `fast`: structure-aware packing of whole blocks up to 512 tokens with 48 tokens of overlap; the
 *   embedding input is the chunk text alone.
 * - `high_quality`: smaller 256-token chunks cut on sentence boundaries with 64 tokens of overlap,
 *   PDF lines de-hyphenated and re-flowed, repeated page headers and footers removed, and the
 *   embedding input prefixed with the file name and the chunk's heading path (contextual chunks).
 */
export const CHUNKING: Record<ChunkingMode, { maxTokens: number; overlapTokens: number }> = {
  fast: { maxTokens: 512, overlapTokens: 48 },
  high_quality: { maxTokens: 256, overlapTokens: 64 },
};

/** Bounds of a store file's `config.max_chunk_size` (tokens, as `estimateTokens` counts them). */
export const MAX_CHUNK_SIZE = { min: 32, max: 8192 } as const;

/**
 * The token budget and overlap of a mode, with the file's `max_chunk_size` when it set one: the
 * overlap keeps the mode's share of the chunk (fast 48/512, high_quality 64/256).
 */
export function chunkingFor(mode: ChunkingMode, maxChunkSize?: number | null): ChunkSizes {
  const base = CHUNKING[mode];
  if (!maxChunkSize) return base;
  return { maxTokens: maxChunkSize, overlapTokens: Math.floor((base.overlapTokens * maxChunkSize) / base.maxTokens) };
}

/** Where a chunk sits in its document: the document's own title and the headings above the chunk. */
export interface ChunkContext {
  title: string | null;
  headings: string[];
}

export interface Chunk {
  chunkIndex: number;
  /** `text` chunks, or `image_url` chunks whose text is the OCR text of an image. */
  type: 'text' | 'image_url';
  mimeType: string;
  text: string;
  /** What is embedded without store contextualization: the text, or (high_quality) the text with its document context. */
  embedText: string;
  context: ChunkContext;
  offset: number;
  tokens: number;
  generatedMetadata: GeneratedMetadata;
}

/** `file name > title > heading > subheading`, repeated neighbours dropped (a title equal to the first heading). */
export function contextLine(filename: string, context: ChunkContext): string {
  const parts: string[] = [];
  for (const p of [filename, context.title, ...context.headings]) {
    const t = p?.replace(/\s+/g, ' ').trim();
    if (t && t.toLowerCase() !== parts[parts.length - 1]?.toLowerCase()) parts.push(t);
  }
  return parts.join(' > ');
}

/**
 * The text embedded for a chunk. Store contextualization (`config.contextualization`) prepends the
 * file context (file name, title, heading path) and/or the file's metadata as `key: value` lines;
 * without it, `fast` embeds the text as it is and `high_quality` with its file context. The chunk's
 * returned text never changes.
 */
export function embeddingInput(chunk: Pick<Chunk, 'text' | 'context'>, o: { filename: string; mode: ChunkingMode; fileContext: boolean; metadataLines?: string | null }): string {
  const head = [o.fileContext || o.mode === 'high_quality' ? contextLine(o.filename, chunk.context) : '', o.metadataLines ?? ''].filter(Boolean).join('\n');
  return head ? `${head}\n\n${chunk.text}` : chunk.text;
}

/** A block, or a part of one, packed into chunks: `offset` and the lines are those of its own text. */
interface Piece {
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
function splitOversized(text: string, maxTokens: number, bySentence: boolean): Array<{ text: string; at: number }> {
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
function pieceOf(block: Block, text: string, at: number, headings: Heading[]): Piece {
  const startLine = block.startLine > 0 ? block.startLine + newlines(block.text.slice(0, at)) : 0;
  return { text, tokens: estimateTokens(text), block, headings, offset: block.offset + at, startLine, endLine: startLine > 0 ? startLine + newlines(text) : 0 };
}

/** Removes lines repeated at the top or bottom of most PDF pages and joins hyphenated line breaks. */
function cleanPdf(blocks: Block[]): Block[] {
  const pages = new Map<number, Block[]>();
  for (const b of blocks) pages.set(b.page ?? 0, [...(pages.get(b.page ?? 0) ?? []), b]);
  const counts = new Map<string, number>();
  for (const bs of pages.values()) {
    for (const t of new Set([bs[0]?.text, bs[bs.length - 1]?.text].filter((x): x is string => !!x))) counts.set(t.replace(/\d+/g, '#'), (counts.get(t.replace(/\d+/g, '#')) ?? 0) + 1);
  }
  const repeated = new Set([...counts].filter(([, n]) => pages.size >= 3 && n >= Math.ceil(pages.size * 0.6)).map(([t]) => t));
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
const rendered = (doc: ParsedDocument, b: Block, text: string) => (b.kind === 'heading' && doc.kind === 'markdown' ? `${'#'.repeat(b.level ?? 1)} ${text}` : text);

/**
 * A chunk size chosen by the caller instead of the mode's: Mixedbread's `config.max_chunk_size`
 * (through `chunkingFor`) or OpenAI's static `chunking_strategy`.
 */
export interface ChunkSizes {
  maxTokens: number;
  overlapTokens: number;
}

/**
 * The artifact key's strategy part: the mode alone for its own sizes (so existing artifacts stay
 * valid), the mode and the sizes otherwise.
 */
export function chunkingKey(mode: ChunkingMode, sizes?: ChunkSizes | null): string {
  if (!sizes || (sizes.maxTokens === CHUNKING[mode].maxTokens && sizes.overlapTokens === CHUNKING[mode].overlapTokens)) return mode;
  return `${mode}:${sizes.maxTokens}:${sizes.overlapTokens}`;
}

/**
 * Packs a parsed document into chunks under the token budget (the mode's, or `sizes`), respecting
 * block boundaries: every chunk's text, a repeated prefix (a CSV header) included, is at most the
 * budget, unless one heading or one word alone is longer or the prefix leaves less than 16. The mode
 * still decides how blocks are cut (sentences or lines) and what is embedded.
 */
export function chunkDocument(doc: ParsedDocument, mode: ChunkingMode, filename: string, sizes?: ChunkSizes | null): Chunk[] {
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
      pieces.push({ text: b.text, tokens, block: b, headings: [...path], offset: b.offset, startLine: b.startLine, endLine: b.endLine });
      continue;
    }
    const tokens = estimateTokens(b.text);
    const parts = tokens > budget ? splitOversized(b.text, budget, mode === 'high_quality' && b.kind !== 'code' && b.kind !== 'definition') : [{ text: b.text, at: 0 }];
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
  for (const p of pieces) {
    const startsSection = p.block.kind === 'heading' && cur.some((x) => x.block.kind !== 'heading') && curTokens > budget / 3;
    if ((curTokens + p.tokens > budget && fresh) || startsSection) {
      emit();
      if (p.block.kind === 'heading') {
        cur = [];
        curTokens = 0;
      }
    }
    if (!fresh && curTokens + p.tokens > budget) {
      cur = []; // the overlap would push this piece over the budget: start clean
      curTokens = 0;
    }
    cur.push(p);
    curTokens += p.tokens;
    fresh++;
  }
  emit();
  return chunks;
}

function makeChunk(doc: ParsedDocument, pieces: Piece[], index: number, prefix: string, filename: string, mode: ChunkingMode): Chunk {
  const body = pieces
    .map((p, i) => {
      const t = rendered(doc, p.block, p.text);
      // PDF lines of one page run on with a newline; everything else is separated by a blank line
      const sep = i === 0 ? '' : doc.kind === 'pdf' && p.block.page === pieces[i - 1].block.page ? '\n' : '\n\n';
      return sep + t;
    })
    .join('');
  const text = prefix + body;
  const first = pieces[0];
  const startLine = Math.min(...pieces.map((p) => p.startLine).filter((n) => n > 0), Number.MAX_SAFE_INTEGER);
  const endLine = Math.max(0, ...pieces.map((p) => p.endLine));
  // reported 0-based, as upstream does (mgrep prints start_line + 1); num_lines 0: the chunk has no line range
  const lineMeta = startLine !== Number.MAX_SAFE_INTEGER ? { start_line: startLine - 1, num_lines: endLine - startLine + 1 } : { start_line: 0, num_lines: 0 };
  const common = doc.fileExtension ? { file_extension: doc.fileExtension } : {};
  const headingContext = first.block.kind === 'heading' ? first.headings.slice(0, -1) : first.headings;
  let generated: GeneratedMetadata;
  switch (doc.kind) {
    case 'markdown':
      generated = {
        type: 'markdown',
        file_type: 'text/markdown',
        word_count: countWords(body),
        file_size: doc.fileSize,
        chunk_headings: pieces.filter((p) => p.block.kind === 'heading').map((p) => ({ level: p.block.level ?? 1, text: p.text })),
        heading_context: headingContext,
        ...lineMeta,
        ...common,
        frontmatter: doc.frontmatter ?? {},
      };
      break;
    case 'pdf': {
      const pages = [...new Set(pieces.map((p) => p.block.page).filter((x): x is number => !!x))].sort((a, b) => a - b);
      generated = { type: 'pdf', file_type: 'application/pdf', total_pages: doc.totalPages ?? null, total_size: doc.fileSize, ...common, pages, page: pages[0] ?? null };
      break;
    }
    case 'code':
      generated = { type: 'code', file_type: doc.fileType, language: doc.language, word_count: countWords(body), file_size: doc.fileSize, ...lineMeta, ...common };
      break;
    case 'image':
      generated = { type: 'image', file_type: doc.fileType, file_size: doc.fileSize, width: doc.image?.width ?? null, height: doc.image?.height ?? null, ...common };
      break;
    default:
      generated = {
        type: 'text',
        file_type: doc.fileType === 'message/rfc822' ? 'message/rfc822' : 'text/plain',
        word_count: countWords(body),
        file_size: doc.fileSize,
        ...lineMeta,
        ...common,
      };
  }
  const context: ChunkContext = { title: doc.title ?? null, headings: headingContext.map((h) => h.text) };
  const embedText = embeddingInput({ text, context }, { filename, mode, fileContext: false });
  return {
    chunkIndex: index,
    type: doc.image ? 'image_url' : 'text',
    mimeType: doc.image?.mimeType ?? 'text/plain',
    text,
    embedText,
    context,
    offset: first.offset,
    tokens: estimateTokens(text),
    generatedMetadata: generated,
  };
}
