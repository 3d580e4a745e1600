import { readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative } from 'path';
import * as ts from 'typescript';
import { QualitySet } from './metrics';
import { firstSentence, KnownItem, knownItems, withoutNames, wordCount } from './names';

/**
 * The packages whose TypeScript sources make the code set: their folder under node_modules and where
 * their sources are. A fixed list of well-known code bases that ship their `.ts` sources.
 */
export const CODE_PACKAGES: Array<[string, string]> = [
  ['rxjs', 'src'],
  ['zod', 'src'],
  ['@grpc/grpc-js', 'src'],
  ['ajv', 'lib'],
  ['apache-arrow', 'src'],
  ['@reduxjs/toolkit', 'src'],
  ['openai', 'src'],
  ['ai', 'src'],
  ['@ai-sdk/provider-utils', 'src'],
  ['@ai-sdk/provider', 'src'],
  ['@ai-sdk/gateway', 'src'],
];
const MAX = Number(process.env.BENCH_QUALITY_CODE_MAX ?? 1500);
/** The node_modules folder the project's packages are installed in. */
export const NODE_MODULES = dirname(dirname(require.resolve('typescript/package.json')));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (!/^(node_modules|__tests__|tests?|spec|internal-tests|fb)$/.test(name)) walk(p);
      } else if (/\.(ts|mts|cts)$/.test(name) && !/\.d\.[mc]?ts$/.test(name) && !/\.(spec|test)\.ts$/.test(name))
        out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The overload signatures just before an implementation (they carry its documentation, as in rxjs). */
function overloads(node: ts.Node, name: string): ts.Node[] {
  const siblings: readonly ts.Node[] =
    ts.isSourceFile(node.parent) || ts.isModuleBlock(node.parent) || ts.isBlock(node.parent)
      ? node.parent.statements
      : ts.isClassLike(node.parent)
        ? node.parent.members
        : [];
  const out: ts.Node[] = [];
  for (let i = siblings.indexOf(node) - 1; i >= 0; i--) {
    const s = siblings[i];
    const same =
      (ts.isFunctionDeclaration(s) || ts.isMethodDeclaration(s)) &&
      !s.body &&
      s.name &&
      ts.isIdentifier(s.name) &&
      s.name.text === name;
    if (!same) break;
    out.unshift(s);
  }
  return out;
}

/** A JSDoc summary: the text before the tags, `{@link x}` as `x`, Markdown code marks dropped. */
function summaryOf(node: ts.Node): string | null {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const doc = docs[docs.length - 1];
  if (!doc?.comment) return null;
  if (doc.tags?.some((t) => /^(deprecated|internal|ignore|hidden|private)$/.test(t.tagName.text))) return null;
  const text = ts
    .getTextOfJSDocComment(doc.comment)!
    .replace(/\{@link(?:code|plain)?\s+([^}|\s]+)[^}]*\}/g, '$1')
    .replace(/`/g, '');
  const paragraph = text.split(/\n\s*\n/)[0];
  return paragraph.trim() ? firstSentence(paragraph) : null;
}

/** The name of a declaration that can carry a body, or null. */
function declared(node: ts.Node): { name: string; body: ts.Node; owner?: string } | null {
  if (ts.isFunctionDeclaration(node) && node.body && node.name) return { name: node.name.text, body: node };
  if ((ts.isMethodDeclaration(node) || ts.isGetAccessor(node)) && node.body && ts.isIdentifier(node.name)) {
    const owner = ts.isClassLike(node.parent) && node.parent.name ? node.parent.name.text : undefined;
    return { name: node.name.text, body: node, owner };
  }
  if (ts.isVariableStatement(node)) {
    const [d] = node.declarationList.declarations;
    if (
      d &&
      ts.isIdentifier(d.name) &&
      d.initializer &&
      (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))
    )
      return { name: d.name.text, body: node };
  }
  return null;
}

/**
 * Natural-language search over code: for each documented function, method or function-valued
 * constant in the sources of `CODE_PACKAGES`, the query is the first sentence of its JSDoc summary
 * with its own names removed (the identifier whole and split into its parts, and its class's), and the
 * document is its code without that comment, uploaded as a source file named by its real path
 * (`rxjs/src/internal/operators/map.ts`); one document per declaration, its own query's one relevant
 * document. Queries under 4 words once the names are gone, and summaries shared by two declarations,
 * are dropped; then at most `BENCH_QUALITY_CODE_MAX` (1,500) are kept, chosen by the hash of their id.
 */
export function codeSet(): QualitySet & { files: number } {
  const found: KnownItem[] = [];
  let files = 0;
  for (const [pkg, src] of CODE_PACKAGES) {
    const root = join(NODE_MODULES, pkg, src);
    for (const path of sourceFiles(root)) {
      files++;
      const text = readFileSync(path, 'utf8');
      const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
      const filename = join(pkg, relative(join(NODE_MODULES, pkg), path));
      const visit = (node: ts.Node) => {
        const d = declared(node);
        const summary = d && (summaryOf(node) ?? overloads(node, d.name).map(summaryOf).find(Boolean));
        if (d && summary) {
          const query = withoutNames(summary, [d.name, d.owner ?? '']);
          // the code from the declaration's first token (leading comments, the JSDoc among them, are trivia)
          const body = text.slice(d.body.getStart(sf), d.body.getEnd());
          if (wordCount(query) >= 4 && wordCount(query) <= 60 && body.length >= 40)
            found.push({
              id: `${filename}#${d.owner ? `${d.owner}.` : ''}${d.name}@${d.body.getStart(sf)}`,
              filename,
              body,
              query,
            });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return { ...knownItems(found, MAX), files };
}
