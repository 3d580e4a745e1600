/** A chunk a hosted tool showed the model, numbered for citation across the whole completion. */
export interface CitedSource {
  fileId: string;
  filename: string;
  storeId: string;
  chunkIndex: number;
  /** Whether the tool that returned it was declared with `citations` (default true). */
  citable: boolean;
}

/** The `file_citation` annotation of a cited source, as OpenAI's chat completions carry it. */
export interface FileCitation {
  type: 'file_citation';
  file_id: string;
  filename: string;
  /** Character offset in the returned content (markers removed) where the citation stood. */
  index: number;
  chunk_id: string;
  store_id: string;
}

const MARKER = /<cite\s+i="(\d+)(?:-(\d+))?"\s*\/>/g;
/** The longest marker kept back while it may still be completed (`<cite i="12345-12399"/>` and some spaces). */
const MAX_MARKER_CHARS = 40;

/**
 * Turns the model's `<cite i="N"/>` markers (and ranges `<cite i="N-M"/>`) into `file_citation`
 * annotations, removing the markers from the text. Works on a stream of deltas: text that may be the
 * start of a marker is held back until it is one (dropped, annotated) or cannot become one (sent).
 * An annotation's `index` is the offset, in the text sent, where its marker stood. A marker naming no
 * source, or a source of a tool declared with `citations: false`, is removed without annotation.
 */
export class CitationExtractor {
  private pending = '';
  private sent = 0;
  readonly annotations: FileCitation[] = [];

  constructor(private readonly sources: readonly CitedSource[]) {}

  /** The text of `delta` that can be sent now. */
  push(delta: string): string {
    this.pending += delta;
    let out = '';
    for (;;) {
      const lt = this.pending.indexOf('<');
      if (lt < 0) {
        out += this.pending;
        this.pending = '';
        break;
      }
      out += this.pending.slice(0, lt);
      this.pending = this.pending.slice(lt);
      MARKER.lastIndex = 0;
      const m = MARKER.exec(this.pending);
      if (m && m.index === 0) {
        this.annotate(this.sent + out.length, Number(m[1]), m[2] === undefined ? Number(m[1]) : Number(m[2]));
        this.pending = this.pending.slice(m[0].length);
        continue;
      }
      if (this.mayBecomeMarker(this.pending)) break;
      out += '<';
      this.pending = this.pending.slice(1);
    }
    this.sent += out.length;
    return out;
  }

  /** The text still held back (at the end of the answer it is not a marker). */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    this.sent += rest.length;
    return rest;
  }

  /** The whole text with markers removed (`push` + `flush`). */
  static extract(text: string, sources: readonly CitedSource[]): { content: string; annotations: FileCitation[] } {
    const x = new CitationExtractor(sources);
    const content = x.push(text) + x.flush();
    return { content, annotations: x.annotations };
  }

  private mayBecomeMarker(s: string): boolean {
    if (s.length > MAX_MARKER_CHARS) return false;
    return /^<(c(i(t(e(\s+(i(=("(\d+(-\d*)?("\s*\/?)?)?)?)?)?)?)?)?)?)?$/.test(s);
  }

  private annotate(at: number, from: number, to: number): void {
    for (let i = from; i <= Math.min(to, from + 50); i++) {
      const s = this.sources[i];
      if (!s || !s.citable) continue;
      if (this.annotations.some((a) => a.index === at && a.chunk_id === `${s.fileId}:${s.chunkIndex}`)) continue;
      this.annotations.push({
        type: 'file_citation',
        file_id: s.fileId,
        filename: s.filename,
        index: at,
        chunk_id: `${s.fileId}:${s.chunkIndex}`,
        store_id: s.storeId,
      });
    }
  }
}
