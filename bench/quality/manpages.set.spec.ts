import { splitPage } from './manpages.set';

const page = [
  'GIT-COMMIT(1)                     Git Manual                     GIT-COMMIT(1)',
  '',
  'NAME',
  '       git-commit - Record changes to the repository',
  '',
  'SYNOPSIS',
  '       git commit [-a] [--amend]',
  '',
  'DESCRIPTION',
  '       Create a new commit containing the current contents of the index.',
  '',
  '   Options',
  '       -a, --all',
  '           Stage every modified file.',
  '',
  'Git 2.39.5                         2024-11-25                  GIT-COMMIT(1)',
  '',
].join('\n');

describe('the man-page set', () => {
  it('makes the NAME summary, without the page names, the query, and the rest the document', () => {
    const split = splitPage(page, 'git-commit')!;
    expect(split.query).toBe('Record changes to the repository');
    expect(split.body).toBe(
      [
        '## SYNOPSIS',
        '       git commit [-a] [--amend]',
        '',
        '## DESCRIPTION',
        '       Create a new commit containing the current contents of the index.',
        '',
        '### Options',
        '       -a, --all',
        '           Stage every modified file.',
        '',
      ].join('\n'),
    );
  });

  it('removes every name of the page, whole and by its parts, and a second list of names', () => {
    const text = page.replace(
      'git-commit - Record changes to the repository',
      'zstd - zstd, zstdmt, unzstd - Compress or decompress files with zstdmt, by Zstd',
    );
    expect(splitPage(text, 'zstd')!.query).toBe('Compress or decompress files with, by');
  });

  it('gives nothing for a page without a NAME section or a summary', () => {
    expect(splitPage(page.replace('NAME', 'NOM'), 'git-commit')).toBeNull();
    expect(splitPage(page.replace(' - Record', ' Record'), 'git-commit')).toBeNull();
  });
});
