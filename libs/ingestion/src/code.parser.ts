import { Block, ParsedDocument } from './document';

/** Source languages by file extension. */
export const CODE_LANGUAGES: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
  scala: 'scala',
  swift: 'swift',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  cs: 'csharp',
  php: 'php',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  sql: 'sql',
  lua: 'lua',
  r: 'r',
  pl: 'perl',
  ex: 'elixir',
  exs: 'elixir',
  erl: 'erlang',
  hs: 'haskell',
  ml: 'ocaml',
  dart: 'dart',
  vue: 'vue',
  svelte: 'svelte',
};

/** A line that starts a top-level definition (column 0), per language family. */
const DEFINITION: Record<string, RegExp> = {
  python: /^(?:async\s+def|def|class)\s|^@/,
  ruby: /^(?:def|class|module)\s/,
  go: /^(?:func|type|var|const)\s/,
  rust: /^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:fn|struct|enum|trait|impl|mod|type|const|static|macro_rules!)[\s<]/,
  elixir: /^\s{0,2}(?:defmodule|def|defp)\s/,
  shell: /^(?:function\s+)?[A-Za-z_][\w-]*\s*\(\)\s*\{?/,
  sql: /^(?:create|alter|select|insert|update|delete|with|drop)\b/i,
  default:
    /^(?:export\s+)?(?:default\s+)?(?:public\s+|private\s+|protected\s+|internal\s+|static\s+|abstract\s+|final\s+|async\s+|declare\s+)*(?:function\*?|class|interface|type|enum|const|let|var|struct|namespace|module|fun|def|object|trait|impl|@\w+)\b|^[A-Za-z_][\w<>,\s*&:]*\s+\**[A-Za-z_]\w*\s*\([^;]*$/,
};

/** Source code: one block per top-level definition, with the lines between definitions (imports, comments) attached to the next. */
export function parseCode(src: {
  text: string;
  fileSize: number;
  extension: string | null;
  mimeType: string;
}): ParsedDocument {
  const language = (src.extension && CODE_LANGUAGES[src.extension]) || 'text';
  const re = DEFINITION[language] ?? DEFINITION.default;
  const lines = src.text.replace(/\r\n?/g, '\n').split('\n');
  const starts: number[] = [];
  let pendingStart: number | null = null;
  lines.forEach((line, i) => {
    const isDecoratorOrComment = /^(@|\/\/\/|\/\*\*|#\[)/.test(line);
    if (re.test(line) || isDecoratorOrComment) {
      if (pendingStart === null) starts.push(i);
      pendingStart = isDecoratorOrComment ? (pendingStart ?? i) : null;
    } else if (line.trim() && pendingStart !== null && !/^\s/.test(line) && !/^[*/]/.test(line.trim())) {
      pendingStart = null;
    }
  });
  if (!starts.length || starts[0] !== 0) starts.unshift(0);
  const offsets: number[] = [];
  let o = 0;
  for (const l of lines) {
    offsets.push(o);
    o += l.length + 1;
  }
  const blocks: Block[] = [];
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k];
    const e = (k + 1 < starts.length ? starts[k + 1] : lines.length) - 1;
    const text = lines
      .slice(s, e + 1)
      .join('\n')
      .replace(/\s+$/, '');
    if (text.trim()) blocks.push({ text, kind: 'definition', startLine: s + 1, endLine: e + 1, offset: offsets[s] });
  }
  return {
    kind: 'code',
    fileType: src.mimeType || 'text/plain',
    fileExtension: src.extension,
    fileSize: src.fileSize,
    language,
    blocks,
  };
}
