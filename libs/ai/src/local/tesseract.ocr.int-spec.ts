import { existsSync } from 'fs';
import { join } from 'path';
import { OcrError } from '../ocr.port';
import { textPng } from '../testing/text-image';
import { bundledEnglishData, TesseractOcr } from './tesseract.ocr';

jest.setTimeout(60_000);

describe('TesseractOcr (tesseract.js in a worker thread, English data from npm)', () => {
  const ocr = new TesseractOcr({ timeoutMs: 30_000, idleMs: 60_000 });
  afterAll(() => ocr.close());

  it('reads the language data from the npm package, a local directory (nothing is fetched)', () => {
    const dir = bundledEnglishData();
    expect(dir.startsWith('/')).toBe(true);
    expect(existsSync(join(dir, 'eng.traineddata.gz'))).toBe(true);
  });

  it('reads the text of a generated image', async () => {
    const r = await ocr.recognize(textPng(['QUINCE MARMALADE 42', 'ZEPHYR WALTZ JOCKEY']));
    expect(r.text).toMatch(/MARMALADE/);
    expect(r.text).toMatch(/ZEPHYR WALTZ JOCKEY/);
    expect(r.confidence).toBeGreaterThan(50);
  });

  it('an unreadable image is an OcrError, and the engine goes on working after it', async () => {
    const truncated = textPng(['PLUM']).subarray(0, 60);
    await expect(ocr.recognize(truncated)).rejects.toMatchObject({ code: 'image_unreadable' });
    await expect(ocr.recognize(Buffer.from('not an image at all'))).rejects.toBeInstanceOf(OcrError);
    expect((await ocr.recognize(textPng(['STILL READING']))).text).toMatch(/STILL READING/);
  });

  it('jobs run one at a time in arrival order, and the event loop stays free meanwhile', async () => {
    const words = ['APRICOT', 'BRAMBLE', 'CHERRY'];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const results = await Promise.all(words.map((w) => ocr.recognize(textPng([w]))));
    clearInterval(timer);
    expect(results.map((r) => r.text.trim())).toEqual(words);
    expect(ticks).toBeGreaterThan(3); // timers fired while OCR ran in the worker thread
  });

  it('a deadline stops the job (a fresh worker takes the next image); a cancelled signal too', async () => {
    const slow = new TesseractOcr({ timeoutMs: 1, idleMs: 1000 });
    try {
      await expect(slow.recognize(textPng(['TOO SLOW']))).rejects.toMatchObject({ code: 'ocr_timeout' });
    } finally {
      await slow.close();
    }
    const controller = new AbortController();
    controller.abort(new Error('deadline passed'));
    await expect(ocr.recognize(textPng(['NEVER']), controller.signal)).rejects.toThrow('deadline passed');
    expect((await ocr.recognize(textPng(['AFTER']))).text.trim()).toBe('AFTER');
  });
});
