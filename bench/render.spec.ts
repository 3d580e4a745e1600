import { renderTables } from './render';
import { BenchResult, printedTables } from './support';

const result: BenchResult = {
  bench: 'eventstore',
  date: '2026-11-29T10:41:07.123Z',
  machine: { cores: 2, cpu: 'test cpu', loadAverage: [1.234, 0.5, 0.25], node: 'v20.19.0' },
  settings: {},
  tables: printedTables(
    [
      'Event store benchmark',
      '',
      '| target | append/s | readAll/s |',
      '|---|---:|---:|',
      '| server Postgres | 869 | 149,469 |',
      '| embedded Postgres | 903 | 129,946 |',
      '',
      '| second | table |',
      '|---|---|',
      '| a | b |',
    ].join('\n'),
  ),
};

const doc = [
  '# Benchmarks',
  '',
  'Prose before.',
  '',
  '<!-- bench:eventstore -->',
  '| old | table |',
  '|---|---|',
  '| 1 | 2 |',
  '<!-- /bench -->',
  '',
  'Prose between.',
  '',
  '<!-- bench:eventstore#1 -->',
  '| old second |',
  '<!-- /bench -->',
  '',
  '<!-- bench:load -->',
  '| load | by hand |',
  '|---|---:|',
  '| searches/s | 281 |',
  '<!-- /bench -->',
  '',
  'Prose after.',
  '',
].join('\n');

describe('the benchmark tables rendered from saved results', () => {
  it('reads the Markdown tables a bench printed', () => {
    expect(result.tables).toEqual([
      {
        columns: ['target', 'append/s', 'readAll/s'],
        right: [false, true, true],
        rows: [
          ['server Postgres', '869', '149,469'],
          ['embedded Postgres', '903', '129,946'],
        ],
      },
      { columns: ['second', 'table'], right: [false, false], rows: [['a', 'b']] },
    ]);
  });

  it('rewrites the tables between the markers from the result and leaves the prose as written', () => {
    const { text, rendered, kept } = renderTables(doc, (bench) => (bench === 'eventstore' ? result : null));
    const measured =
      '<sub>2026-11-29 10:41 UTC, 2 cores, load average 1.2 / 0.5 / 0.3 (1 / 5 / 15 min), Node v20.19.0.</sub>';
    const first = [
      '| target | append/s | readAll/s |',
      '|---|---:|---:|',
      '| server Postgres | 869 | 149,469 |',
      '| embedded Postgres | 903 | 129,946 |',
    ].join('\n');
    const second = ['| second | table |', '|---|---|', '| a | b |'].join('\n');
    expect(text).toBe(
      doc
        .replace('| old | table |\n|---|---|\n| 1 | 2 |\n', `${first}\n\n${measured}\n`)
        .replace('| old second |\n', `${second}\n\n${measured}\n`),
    );
    expect(text).toContain('Prose before.\n\n<!-- bench:eventstore -->\n| target |');
    expect(text).toContain('| searches/s | 281 |\n<!-- /bench -->\n\nProse after.');
    expect(rendered).toEqual(['eventstore', 'eventstore#1']);
    expect(kept).toEqual(['load: no saved result']);
  });

  it('names the settings a result ran with under its table', () => {
    const withSettings = { ...result, settings: { BENCH_SEARCH_CHUNKS: '100000', BENCH_SEARCH_WARMUP: '50' } };
    const { text } = renderTables(doc, () => withSettings);
    expect(text).toContain(
      '<sub>2026-11-29 10:41 UTC, 2 cores, load average 1.2 / 0.5 / 0.3 (1 / 5 / 15 min), Node v20.19.0; BENCH_SEARCH_CHUNKS=100000, BENCH_SEARCH_WARMUP=50.</sub>',
    );
  });

  it('leaves a table untouched when its bench has no saved result or no such table', () => {
    const { text, kept } = renderTables(doc, (bench) => (bench === 'eventstore' ? { ...result, tables: [] } : null));
    expect(text).toBe(doc);
    expect(kept).toEqual([
      'eventstore: no table 0 in its result',
      'eventstore#1: no table 1 in its result',
      'load: no saved result',
    ]);
  });

  it('renders the same text again from the same result', () => {
    const once = renderTables(doc, () => result).text;
    expect(renderTables(once, () => result).text).toBe(once);
  });
});
