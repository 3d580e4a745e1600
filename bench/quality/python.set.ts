import { execFileSync } from 'child_process';
import { QualitySet } from './metrics';
import { firstSentence, KnownItem, knownItems, withoutNames, wordCount } from './names';

/** The Python standard library the set is built from (BENCH_QUALITY_PYTHON_LIB; Debian's python3.11 by default). */
const LIB = process.env.BENCH_QUALITY_PYTHON_LIB ?? '/usr/lib/python3.11';
const MAX = Number(process.env.BENCH_QUALITY_PYTHON_MAX ?? 1500);

/**
 * Prints, as JSON lines, each function and method with a docstring in the `.py` files under the folder
 * given (tests, demos, IDLE, vendored and platform folders skipped): its file's path relative to the
 * folder, its name, its class's (when it is a method), the docstring, and its source without the
 * docstring (decorators included, dedented, the docstring's lines cut out).
 */
const SCRIPT = String.raw`
import ast, json, os, sys, textwrap
root = sys.argv[1]
SKIP = {'test', 'tests', 'idlelib', 'turtledemo', 'lib2to3', 'ensurepip', 'site-packages', 'dist-packages',
        '__pycache__', 'lib-dynload', 'config-3.11-x86_64-linux-gnu', 'pydoc_data', 'encodings'}
files = 0
for d, dirs, names in os.walk(root):
    dirs[:] = sorted(x for x in dirs if x not in SKIP)
    for n in sorted(names):
        if not n.endswith('.py') or n.startswith('test_'):
            continue
        path = os.path.join(d, n)
        try:
            text = open(path, encoding='utf-8').read()
            tree = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        files += 1
        lines = text.split('\n')
        rel = os.path.relpath(path, root)
        def visit(node, owner):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    doc = ast.get_docstring(child)
                    first = child.body[0]
                    if doc and first.lineno > child.lineno:
                        start = min([child.lineno] + [x.lineno for x in child.decorator_list]) - 1
                        kept = lines[start:first.lineno - 1] + lines[first.end_lineno:child.end_lineno]
                        print(json.dumps({'file': rel, 'name': child.name, 'owner': owner, 'doc': doc,
                                          'line': start + 1, 'code': textwrap.dedent('\n'.join(kept))}))
                    visit(child, None)
                elif isinstance(child, ast.ClassDef):
                    visit(child, child.name)
                else:
                    visit(child, owner if isinstance(child, (ast.If, ast.Try)) else None)
        visit(tree, None)
print(json.dumps({'files': files}))
`;

/** A function as the script prints it. */
interface Found {
  file: string;
  name: string;
  owner: string | null;
  doc: string;
  line: number;
  code: string;
}

/** A docstring's summary: its first paragraph's first sentence, reST roles and code marks dropped. */
function summaryOf(doc: string): string | null {
  const paragraph = doc.split(/\n\s*\n/)[0];
  if (!paragraph.trim()) return null;
  return firstSentence(paragraph.replace(/:[\w:.-]+:`~?([^`]+)`/g, '$1').replace(/`+/g, ''));
}

/**
 * Natural-language search over Python code: for each function and method with a docstring in the
 * Python standard library (`BENCH_QUALITY_PYTHON_LIB`, python3's `ast` module finds them), the query is
 * the docstring's first sentence with the function's own names removed (its name and its class's, whole
 * and split into their parts), and the document is the function's code without its docstring, uploaded as
 * a `.py` file named by its real path (`json/decoder.py`); one document per function, its own query's one
 * relevant document. Queries under 4 words once the names are gone, and summaries or bodies shared by two
 * functions, are dropped; then at most `BENCH_QUALITY_PYTHON_MAX` (1,500) are kept, chosen by the hash
 * of their id.
 */
export function pythonSet(): QualitySet & { files: number } {
  const out = execFileSync('python3', ['-c', SCRIPT, LIB], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const found: KnownItem[] = [];
  let files = 0;
  for (const line of out.split('\n').filter(Boolean)) {
    const r = JSON.parse(line) as Found | { files: number };
    if ('files' in r) {
      files = r.files;
      continue;
    }
    const code = r.code.replace(/\s+$/, '');
    const summary = summaryOf(r.doc);
    if (!summary) continue;
    const query = withoutNames(summary, [r.name, r.owner ?? '']);
    if (wordCount(query) >= 4 && wordCount(query) <= 60 && code.length >= 40)
      found.push({
        id: `${r.file}#${r.owner ? `${r.owner}.` : ''}${r.name}@${r.line}`,
        filename: r.file,
        body: code,
        query,
      });
  }
  return { ...knownItems(found, MAX), files };
}
