/**
 * Literal substrings that every match of an RE2 pattern must contain, for the index's n-gram
 * pre-filter. Conservative: it returns fewer literals (or none) whenever it is unsure, never a
 * literal that a match could lack. Alternation at the top level, groups and classes end a run.
 */
export function requiredLiterals(pattern: string): string[] {
  const runs: string[] = [];
  let cur = '';
  const flush = () => {
    if (cur) runs.push(cur);
    cur = '';
  };
  // top-level alternation means no single literal is required
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[') {
      i = skipClass(pattern, i);
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return [];
  }
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const n = pattern[i + 1];
      i++;
      if (n === undefined) break;
      if (/[A-Za-z0-9]/.test(n)) {
        // \d \w \s \b \pL \x41 \Q…: not a plain literal
        flush();
        if (n === 'p' || n === 'P') i = pattern[i + 1] === '{' ? pattern.indexOf('}', i) : i + 1;
        if (n === 'x') i = pattern[i + 1] === '{' ? pattern.indexOf('}', i) : i + 2;
        if (n === 'Q') {
          const end = pattern.indexOf('\\E', i);
          const lit = pattern.slice(i + 1, end < 0 ? undefined : end);
          cur = lit;
          i = end < 0 ? pattern.length : end + 1;
          flush();
        }
        if (i < 0) break;
        i = quantified(pattern, i, true);
        continue;
      }
      cur += n;
      i = quantified(pattern, i);
      continue;
    }
    if (c === '[') {
      flush();
      i = skipClass(pattern, i);
      i = quantified(pattern, i, true);
      continue;
    }
    if (c === '(') {
      flush();
      i = skipGroup(pattern, i);
      i = quantified(pattern, i, true);
      continue;
    }
    if ('.^$'.includes(c)) {
      flush();
      i = quantified(pattern, i, true);
      continue;
    }
    if ('*+?{'.includes(c)) {
      flush();
      if (c === '{') {
        const end = pattern.indexOf('}', i);
        if (end >= 0) i = end;
      }
      continue;
    }
    cur += c;
    i = quantified(pattern, i);
  }
  flush();
  return [...new Set(runs.filter((r) => [...r].length >= 3))];

  /** After the atom ending at `i`: an optional quantifier drops the atom's last char; any quantifier ends the run. */
  function quantified(p: string, i: number, atomIsNotLiteral = false): number {
    const q = p[i + 1];
    if (q === '*' || q === '?') {
      if (!atomIsNotLiteral) cur = [...cur].slice(0, -1).join('');
      flush();
      return i + 1 + (p[i + 2] === '?' ? 1 : 0);
    }
    if (q === '+') {
      flush();
      return i + 1 + (p[i + 2] === '?' ? 1 : 0);
    }
    if (q === '{') {
      const end = p.indexOf('}', i + 1);
      const min = Number(/^\{(\d*)/.exec(p.slice(i + 1))?.[1] || 0);
      if (min === 0 && !atomIsNotLiteral) cur = [...cur].slice(0, -1).join('');
      flush();
      return end < 0 ? p.length : end + (p[end + 1] === '?' ? 1 : 0);
    }
    return i;
  }
}

function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j++;
  if (p[j] === ']') j++;
  for (; j < p.length; j++) {
    if (p[j] === '\\') j++;
    else if (p[j] === '[' && p[j + 1] === ':') j = p.indexOf(':]', j) + 1;
    else if (p[j] === ']') return j;
  }
  return p.length;
}

function skipGroup(p: string, i: number): number {
  let depth = 0;
  for (let j = i; j < p.length; j++) {
    if (p[j] === '\\') j++;
    else if (p[j] === '[') j = skipClass(p, j);
    else if (p[j] === '(') depth++;
    else if (p[j] === ')' && --depth === 0) return j;
  }
  return p.length;
}
