import { monitorEventLoopDelay, performance } from 'perf_hooks';
import { TesseractOcr } from '@larder/ai/local/tesseract.ocr';
import { textPng } from '@larder/ai/testing/text-image';

const WORDS =
  'apricot bramble cherry damson elder fig gooseberry hawthorn juniper kumquat lemon medlar nectarine orange pear quince rowan sloe tangerine vanilla walnut'.split(
    ' ',
  );

/** `lines` lines of `perLine` words drawn from WORDS (deterministic). */
function page(lines: number, perLine: number, seed: number): string[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: lines }, () =>
    Array.from({ length: perLine }, () => WORDS[next() % WORDS.length]).join(' '),
  );
}

/** Share of the image's words that the OCR text has, in order of appearance (word accuracy). */
function wordAccuracy(expected: string[], text: string): number {
  const want = expected.join(' ').toUpperCase().split(/\s+/);
  const got = new Set(text.toUpperCase().split(/\s+/));
  return want.filter((w) => got.has(w)).length / want.length;
}

/**
 * `npm run bench -- ocr`: the OCR engine behind image ingestion (tesseract.js 7, English LSTM data
 * from npm, one worker thread) on generated images of known text: worker start, latency per image
 * size, word accuracy, and the event loop's delay while OCR runs (it runs in the worker thread).
 */
export async function ocrBench(): Promise<void> {
  const runs = Number(process.env.BENCH_OCR_RUNS ?? 5);
  const ocr = new TesseractOcr({ timeoutMs: 600_000, idleMs: 600_000 });
  const out = (s: string) => process.stdout.write(s);
  try {
    const t0 = performance.now();
    await ocr.recognize(textPng(['WARM UP']));
    const startMs = performance.now() - t0;
    out(`\nOCR benchmark (tesseract.js 7, eng LSTM, one worker thread; ${runs} runs per size)\n\n`);
    out(`first image, worker start included: ${startMs.toFixed(0)} ms\n\n`);
    out(
      `${'image'.padEnd(34)}${'pixels'.padStart(12)}${'p50 ms'.padStart(10)}${'max ms'.padStart(10)}${'words ok'.padStart(10)}${'loop p99 ms'.padStart(13)}${'loop max ms'.padStart(13)}\n`,
    );
    for (const [name, lines, perLine] of [
      ['label (2 lines × 3 words)', 2, 3],
      ['paragraph (10 lines × 6 words)', 10, 6],
      ['page (40 lines × 9 words)', 40, 9],
    ] as const) {
      const times: number[] = [];
      let accuracy = 0;
      // the images are drawn first: drawing runs on this thread, OCR must not
      const inputs = Array.from({ length: runs }, (_, r) => page(lines, perLine, r + 1)).map((text) => ({
        text,
        image: textPng(text),
      }));
      const pixels = inputs[0].image.readUInt32BE(16) * inputs[0].image.readUInt32BE(20);
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      for (const { text, image } of inputs) {
        const t = performance.now();
        const result = await ocr.recognize(image);
        times.push(performance.now() - t);
        accuracy += wordAccuracy(text, result.text) / runs;
      }
      delay.disable();
      times.sort((a, b) => a - b);
      out(
        `${name.padEnd(34)}${String(pixels).padStart(12)}${times[Math.floor(times.length / 2)].toFixed(0).padStart(10)}${times[times.length - 1].toFixed(0).padStart(10)}` +
          `${(accuracy * 100).toFixed(1).padStart(9)}%${(delay.percentile(99) / 1e6).toFixed(1).padStart(13)}${(delay.max / 1e6).toFixed(1).padStart(13)}\n`,
      );
    }
    out('\n');
  } finally {
    await ocr.close();
  }
}
