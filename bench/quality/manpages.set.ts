import { execFile } from 'child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'fs';
import { cpus } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { Doc, Judged, QualitySet } from './metrics';
import { sha, shuffled, withoutNames, wordCount } from './names';
import { CACHE } from './variants';

const MAN = process.env.BENCH_QUALITY_MANPATH ?? '/usr/share/man';
const MAX = Number(process.env.BENCH_QUALITY_MANPAGES_MAX ?? 800);
const SECTIONS = ['1', '2', '3', '5', '7', '8'];
/** A rendered page longer than this (bytes of text) is left out. */
const MAX_BYTES = 30_000;
/** At most this many pages of one family (the name up to its first `-`, `_`, `.` or `:`: git-*, gcloud_*, Dpkg::*). */
const PER_FAMILY = 10;
/** Pages rendered at once, each by its own `man` process. */
const CONCURRENCY = Math.max(2, Math.min(8, cpus().length * 2));

const run = promisify(execFile);

/**
 * One page as plain text, 80 columns, without hyphenation or justification (kept in the bench's cache,
 * keyed by the file's path, size and time); null when `man` fails on it.
 */
async function render(file: string): Promise<string | null> {
  const st = existsSync(file) ? statSync(file) : null;
  if (!st) return null;
  const cached = join(CACHE, 'man', `${sha([file, st.size, st.mtimeMs].join('\u0000'))}.txt`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  try {
    const { stdout } = await run('man', ['--nh', '--nj', '-P', 'cat', '-l', file], {
      env: { ...process.env, MANWIDTH: '80', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', MAN_KEEP_FORMATTING: '' },
      maxBuffer: 64 << 20,
    });
    mkdirSync(join(CACHE, 'man'), { recursive: true });
    writeFileSync(cached, stdout);
    return stdout;
  } catch {
    return null;
  }
}

/** A page's file name without `.gz`, its name without the section, and its family (lower case). */
function named(path: string, section: string): { file: string; base: string; family: string } {
  const file = path.split('/').pop()!.replace(/\.gz$/, '');
  const base = file.replace(new RegExp(`\\.${section}\\w*$`), '');
  return { file, base, family: base.split(/[-_.:]/)[0].toLowerCase() };
}

interface Page {
  id: string;
  filename: string;
  body: string;
  query: string;
}

/**
 * A rendered page split into its summary and its document: the NAME section's one-line summary with the
 * page's names removed (those before the dash, the file's own name, each whole and by its parts), and the
 * page without its header and footer lines and its NAME section, the section headings (column 0) as `##`
 * and the subsection headings (3 spaces) as `###` Markdown headings.
 */
export function splitPage(text: string, base: string): { query: string; body: string } | null {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length && !lines[0].trim()) lines.shift();
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  // the pager's header (`LS(1)  User Commands  LS(1)`) and footer (`GNU coreutils 9.1  2022  LS(1)`)
  lines.shift();
  lines.pop();
  const nameAt = lines.findIndex((l) => /^NAME\s*$/.test(l));
  if (nameAt < 0) return null;
  let end = nameAt + 1;
  while (end < lines.length && !/^\S/.test(lines[end])) end++;
  const name = lines
    .slice(nameAt + 1, end)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const dash = /\s[-–—]\s/.exec(name);
  if (!dash) return null;
  const names = name.slice(0, dash.index).split(/,\s*/);
  let summary = name.slice(dash.index + dash[0].length);
  // `zstd - zstd, zstdmt, unzstd, zstdcat - Compress …`: a second list of names before the summary
  const more = /^((?:[\w.+:-]+,\s*)*[\w.+:-]+)\s[-–—]\s/.exec(summary);
  if (more) {
    names.push(...more[1].split(/,\s*/));
    summary = summary.slice(more[0].length);
  }
  names.push(base);
  const query = withoutNames(
    summary,
    names.map((n) => n.trim()).filter((n) => n.length >= 2),
  )
    .replace(/^[\s,;:–—-]+/, '')
    .trim();
  const body = [...lines.slice(0, nameAt), ...lines.slice(end)]
    .map((l) => (/^\S/.test(l) ? `## ${l.trim()}` : /^ {3}\S/.test(l) ? `### ${l.trim()}` : l.trimEnd()))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { query, body: `${body}\n` };
}

/** The pages of a section, in the set's fixed order (by the SHA-1 of their path), links left out. */
function candidates(section: string): string[] {
  const dir = join(MAN, `man${section}`);
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((f) => new RegExp(`\\.${section}[\\w]*(\\.gz)?$`).test(f))
    .map((f) => join(dir, f))
    .filter((p) => lstatSync(p).isFile());
  return shuffled(files, (p) => `manpages\u0000${p.slice(MAN.length)}`);
}

/**
 * Known-item search over reference pages: the man pages installed in sections 1, 2, 3, 5, 7 and 8 of
 * `/usr/share/man` (`BENCH_QUALITY_MANPATH`), each rendered to plain text by `man`; the query is the NAME
 * section's one-line summary with the page's own names removed (./splitPage), the document the page
 * without its NAME section, uploaded as Markdown (`man1/ls.1.md`). Pages are taken in a fixed order (the
 * SHA-1 of their path), as evenly across the sections as they allow, `BENCH_QUALITY_MANPAGES_MAX` (800)
 * in all; left out: links, pages over 30 KB of text or under 40 words, summaries under 4 words once the
 * names are gone, a summary or a page already taken, and a family's pages past its tenth. Null, with the
 * reason, when the pages or `man` are missing.
 */
export async function manpagesSet(): Promise<(QualitySet & { bySection: Map<string, number> }) | null> {
  const lists = new Map(SECTIONS.map((s) => [s, candidates(s)]));
  const total = [...lists.values()].reduce((n, l) => n + l.length, 0);
  if (total < 100 || !(await render(lists.get('1')?.[0] ?? '')))
    return (
      process.stdout.write(
        `\n(manpages: ${total} pages under ${MAN}/man{${SECTIONS.join(',')}} or no working \`man\`: install man-db and the` +
          ` packages' manuals; a minimal Debian image excludes /usr/share/man (/etc/dpkg/dpkg.cfg.d/excludes; \`unminimize\`))\n`,
      ),
      null
    );
  const taken = new Map<string, Page[]>(SECTIONS.map((s) => [s, []]));
  const cursor = new Map(SECTIONS.map((s) => [s, 0]));
  const families = new Map<string, number>();
  const seenQueries = new Set<string>();
  const seenBodies = new Set<string>();
  /** Takes pages of `section` in order until it holds `target` or has none left. */
  const fill = async (section: string, target: number) => {
    const list = lists.get(section)!;
    const got = taken.get(section)!;
    while (got.length < target && cursor.get(section)! < list.length) {
      // the next pages whose family is not full yet (pages of a full family are passed without rendering)
      let start = cursor.get(section)!;
      while (start < list.length && (families.get(named(list[start], section).family) ?? 0) >= PER_FAMILY) start++;
      cursor.set(section, start);
      const batch: string[] = [];
      const inBatch = new Map<string, number>();
      for (let j = start; j < list.length && batch.length < target - got.length + CONCURRENCY; j++) {
        const { family } = named(list[j], section);
        const n = (families.get(family) ?? 0) + (inBatch.get(family) ?? 0);
        inBatch.set(family, (inBatch.get(family) ?? 0) + 1);
        batch.push(n < PER_FAMILY ? list[j] : '');
      }
      const texts = batch.map((): string | null => null);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < batch.length) {
            const i = next++;
            texts[i] = batch[i] ? await render(batch[i]) : null;
          }
        }),
      );
      for (let i = 0; i < batch.length; i++) {
        cursor.set(section, start + i + 1);
        const { file, base, family } = named(list[start + i], section);
        const split = texts[i] ? splitPage(texts[i]!, base) : null;
        if (!split || (families.get(family) ?? 0) >= PER_FAMILY) continue;
        const { query, body } = split;
        const bodyKey = sha(body.replace(/\s+/g, ' '));
        if (wordCount(query) < 4 || wordCount(body) < 40 || Buffer.byteLength(body) > MAX_BYTES) continue;
        if (seenQueries.has(query.toLowerCase()) || seenBodies.has(bodyKey)) continue;
        seenQueries.add(query.toLowerCase());
        seenBodies.add(bodyKey);
        families.set(family, (families.get(family) ?? 0) + 1);
        got.push({ id: `man${section}/${file}`, filename: `man${section}/${file}.md`, body, query });
        if (got.length >= target) break;
      }
    }
  };
  // as evenly as the sections allow: what one cannot give is shared among the others
  for (;;) {
    const count = () => [...taken.values()].reduce((n, l) => n + l.length, 0);
    const open = SECTIONS.filter((s) => cursor.get(s)! < lists.get(s)!.length);
    const left = MAX - count();
    if (left <= 0 || !open.length) break;
    for (const [k, s] of open.entries())
      await fill(s, taken.get(s)!.length + Math.floor(left / open.length) + (k < left % open.length ? 1 : 0));
  }
  const pages = SECTIONS.flatMap((s) => taken.get(s)!);
  const docs: Doc[] = pages.map((p) => ({ id: p.id, filename: p.filename, body: p.body }));
  const queries: Judged[] = pages.map((p) => ({ text: p.query, gains: new Map([[p.id, 1]]) }));
  return { docs, queries, bySection: new Map(SECTIONS.map((s) => [s, taken.get(s)!.length])) };
}
