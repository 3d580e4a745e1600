import { parsePocketsphinxTimes } from './pocketsphinx.transcriber';

/** What `pocketsphinx_continuous -infile x.wav -time yes` printed for two utterances of espeak-ng speech. */
const OUTPUT = `we will meet at the library
<s> 0.000 0.020 1.000100
we 0.030 0.130 0.887884
will 0.140 0.360 0.999000
meet 0.370 0.660 0.049825
library 0.990 1.680 1.000000
</s> 1.690 2.160 1.000000
she bought a birthday party
<s> 5.020 5.150 0.999600
she 5.160 5.350 0.967245
bought(2) 5.360 5.670 0.434658
<sil> 5.680 5.800 0.957332
[NOISE] 5.810 5.900 0.5
++BREATH++ 5.900 6.000 0.5
birthday 7.080 7.560 1.000000
party 7.570 8.110 0.999000
</s> 8.120 8.530 1.000000
`;

describe('PocketSphinx word times become segments', () => {
  it('one segment per utterance, fillers and pronunciation variants dropped, hypothesis lines skipped', () => {
    expect(parsePocketsphinxTimes(OUTPUT)).toEqual([
      { start: 0.03, end: 1.68, text: 'we will meet library' },
      { start: 5.16, end: 8.11, text: 'she bought birthday party' },
    ]);
  });

  it('an utterance longer than 15 s is cut into segments', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word ${i} ${i + 0.9} 0.9`).join('\n');
    const segments = parsePocketsphinxTimes(`<s> 0 0 1\n${words}\n</s> 40 41 1\n`);
    expect(segments.map((s) => [s.start, s.end])).toEqual([
      [0, 14.9],
      [15, 29.9],
      [30, 39.9],
    ]);
    expect(parsePocketsphinxTimes('')).toEqual([]);
  });
});
