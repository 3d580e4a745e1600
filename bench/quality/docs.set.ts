import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';
import { NODE_MODULES } from './code.set';
import { Doc, Judged, QualitySet } from './metrics';
import { firstSentence, sha, shuffled, withoutNames, wordCount } from './names';

const MAX = Number(process.env.BENCH_QUALITY_DOCS_MAX ?? 800);
/** At most this many sections of one package, so that a few long manuals do not make the set. */
const PER_PACKAGE = 40;
const BOILERPLATE =
  /^(licen[cs]e|install(ation|ing)?|contribut(e|ing|ors)|changelog|change log|credits|authors?|maintainers?|sponsors?|backers|security|support|table of contents|contents|toc|tests?|testing|build(ing)?|usage|examples?|faq|related|see also|thanks|acknowledg(e)?ments|donate|community|badges|links|api|documentation|getting started|quick ?start|features|overview|introduction|motivation|why|status|notes?|todo|roadmap|versioning|browser support|compatibility|requirements|license and copyright|copyright)$/i;

/** The package folders under node_modules (scoped ones opened), sorted. */
function packages(): string[] {
  const out: string[] = [];
  for (const name of readdirSync(NODE_MODULES).sort()) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@'))
      for (const sub of readdirSync(join(NODE_MODULES, name)).sort()) out.push(`${name}/${sub}`);
    else out.push(name);
  }
  return out;
}

/** A package's Markdown manual pages: its README and the `.md` files of its `docs/` (two levels). */
function pages(pkg: string): string[] {
  const root = join(NODE_MODULES, pkg);
  const out = readdirSync(root)
    .filter((f) => /^readme\.md$/i.test(f))
    .map((f) => f);
  const walk = (rel: string, depth: number) => {
    const dir = join(root, rel);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return;
    for (const name of readdirSync(dir).sort()) {
      const p = join(rel, name);
      if (statSync(join(root, p)).isDirectory()) {
        if (depth < 2) walk(p, depth + 1);
      } else if (/\.mdx?$/i.test(name)) out.push(p);
    }
  };
  walk('docs', 0);
  return out;
}

/** The first paragraph of prose of a section's lines (not code, a list, a table, a quote, a picture or HTML). */
function firstProse(lines: string[]): { text: string; start: number; end: number } | null {
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (/^(```|~~~)/.test(l)) fence = !fence;
    if (fence || !l || !/^[A-Za-z]/.test(l) || /^(import|export|const|let|var)\s/.test(l)) continue;
    let end = i;
    while (
      end + 1 < lines.length &&
      lines[end + 1].trim() &&
      !/^(```|~~~|#|[-*+>|[<]|\d+\.)/.test(lines[end + 1].trim())
    )
      end++;
    const text = lines.slice(i, end + 1).join(' ');
    if (/\]:\s|https?:\/\//.test(text)) {
      i = end;
      continue;
    }
    return { text, start: i, end };
  }
  return null;
}

/**
 * Known-item search over technical documentation: the READMEs and `docs/` pages of the packages in
 * node_modules (identical pages once), split at their headings; for each section with at least 40 words
 * and a heading that is not boilerplate (License, Installation, …), the query is the first sentence of
 * its first paragraph of prose with the page's own names removed (the package's name and its parts,
 * inline code, and the identifiers of the heading), and the document is the section without that
 * sentence, uploaded as Markdown (`<package>/<page>-<n>.md`). Sentences of 5–40 words once the names
 * are gone; sentences found in two sections are dropped. At most 40 sections of a package and
 * `BENCH_QUALITY_DOCS_MAX` (800) in all, chosen by the hash of their id.
 */
export function docsSet(): QualitySet & { pages: number; packages: number } {
  const seenPages = new Set<string>();
  const found: Array<{ id: string; pkg: string; filename: string; body: string; query: string }> = [];
  let pageCount = 0;
  const pkgs = new Set<string>();
  for (const pkg of packages()) {
    for (const page of pages(pkg)) {
      const text = readFileSync(join(NODE_MODULES, pkg, page), 'utf8').replace(/\r\n?/g, '\n');
      const key = sha(text.replace(/\s+/g, ' ').trim());
      if (seenPages.has(key) || text.length < 200) continue;
      seenPages.add(key);
      pageCount++;
      const lines = text.split('\n');
      const heads: number[] = [];
      let fence = false;
      lines.forEach((l, i) => {
        if (/^\s*(```|~~~)/.test(l)) fence = !fence;
        else if (!fence && /^#{1,4}\s+\S/.test(l)) heads.push(i);
      });
      heads.forEach((h, k) => {
        const heading = lines[h].replace(/^#+\s+/, '').trim();
        const plain = heading.replace(/[`*_[\]()]|<[^>]*>|:$/g, '').trim();
        if (BOILERPLATE.test(plain) || !/[A-Za-z]/.test(plain)) return;
        const section = lines.slice(h + 1, heads[k + 1] ?? lines.length);
        const prose = firstProse(section);
        if (!prose) return;
        const sentence = firstSentence(prose.text);
        const names = [
          pkg,
          ...pkg.split(/[@/.-]/),
          ...(heading.match(/`[^`]+`/g) ?? []).map((c) => c.replace(/`/g, '')),
          ...heading.split(/\s+/).filter((w) => /[a-z][A-Z]|[._()/]|^[A-Z]{2,}$|[a-z]-[a-z]/.test(w)),
        ].map((n) => n.replace(/[^\w$.\-/]/g, ''));
        const query = withoutNames(
          sentence
            .replace(/`[^`]*`/g, ' ')
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>|[*_]{1,2}/g, ''),
          names.filter((n) => n.length >= 2),
        );
        const rest = prose.text.replace(/\s+/g, ' ').trim().slice(sentence.length).trim();
        const body = [
          lines[h],
          ...section.slice(0, prose.start),
          ...(rest ? [rest] : []),
          ...section.slice(prose.end + 1),
        ].join('\n');
        if (wordCount(query) < 5 || wordCount(query) > 40 || wordCount(body) < 40) return;
        const base = page.replace(/\.mdx?$/i, '');
        found.push({ id: `${pkg}/${page}#${k}`, pkg, filename: `${pkg}/${base}-${k}.md`, body, query });
      });
    }
  }
  const byQuery = new Map<string, number>();
  for (const f of found) byQuery.set(f.query.toLowerCase(), (byQuery.get(f.query.toLowerCase()) ?? 0) + 1);
  const perPackage = new Map<string, number>();
  const kept = shuffled(
    found.filter((f) => byQuery.get(f.query.toLowerCase()) === 1),
    (f) => f.id,
  )
    .filter((f) => {
      const n = perPackage.get(f.pkg) ?? 0;
      perPackage.set(f.pkg, n + 1);
      return n < PER_PACKAGE;
    })
    .slice(0, MAX);
  for (const f of kept) pkgs.add(f.pkg);
  const docs: Doc[] = kept.map((f) => ({ id: f.id, filename: f.filename, body: `${f.body.trim()}\n` }));
  const queries: Judged[] = kept.map((f) => ({ text: f.query, gains: new Map([[f.id, 1]]) }));
  return { docs, queries, pages: pageCount, packages: pkgs.size };
}
