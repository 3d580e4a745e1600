import { RE2JS } from 're2js';
import { requiredLiterals } from './grep-literals';

describe('required literals of an RE2 pattern (grep pre-filter)', () => {
  it.each<[string, string[]]>([
    ['strawberry', ['strawberry']],
    ['straw(berry|man)', ['straw']],
    ['jam|jelly', []],
    ['foo\\.bar', ['foo.bar']],
    ['colou?r', ['colo']],
    ['abcd*e', ['abc']],
    ['abc+de', ['abc', 'de'].filter((x) => x.length >= 3)],
    ['\\bpickle\\w+', ['pickle']],
    ['[Jj]am jar', ['am jar']],
    ['a.b.c', []],
    ['(?i)brine', ['brine']],
    ['error \\d{3} on line', ['error ', ' on line']],
    ['x{0,2}yyyz', ['yyyz']],
    ['\\Qa.b*c\\E', ['a.b*c']],
    ['^TODO:', ['TODO:']],
  ])('%s → %j', (pattern, expected) => {
    expect(requiredLiterals(pattern)).toEqual(expected);
  });

  // The guarantee that matters: every match of the pattern contains every literal.
  it.each([
    ['colou?r', ['color', 'colour']],
    ['abcd*e', ['abce', 'abcdddde']],
    ['x{0,2}yyyz', ['yyyz', 'xxyyyz']],
    ['straw(berry|man)', ['strawberry', 'strawman']],
    ['error \\d{3} on line', ['error 404 on line 3']],
  ])('%s: every match contains the literals', (pattern, samples) => {
    const re = RE2JS.compile(pattern);
    for (const s of samples) {
      expect(re.matcher(s).find()).toBe(true);
      for (const lit of requiredLiterals(pattern)) expect(s).toContain(lit);
    }
  });
});
