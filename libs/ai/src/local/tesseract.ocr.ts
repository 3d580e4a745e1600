import { dirname, join } from 'path';
import type { Worker } from 'tesseract.js';
import { Ocr, OcrError, OcrResult } from '../ocr.port';

export interface TesseractOcrOptions {
  /** Directory holding `eng.traineddata.gz`; default: the LSTM model of `@tesseract.js-data/eng` (4.0.0_best_int). */
  langPath?: string;
  /** Longest one image may take; the worker is terminated (and started afresh next time) beyond it. */
  timeoutMs: number;
  /** An idle worker is terminated after this long, giving its memory back. */
  idleMs: number;
}

/** The English LSTM model shipped in the npm package `@tesseract.js-data/eng`: nothing is downloaded. */
export function bundledEnglishData(): string {
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

/**
 * OCR with tesseract.js: Tesseract compiled to WebAssembly (`tesseract.js-core`), run in a worker
 * thread, so recognition never blocks the event loop. Language data and the WebAssembly core are read
 * from local `node_modules` files (langPath is a directory, caching is off, so nothing is fetched or
 * written). One worker, created on first use; images are recognised one at a time in arrival order.
 */
export class TesseractOcr implements Ocr {
  readonly engine = 'tesseract.js 7 eng';
  private worker: Promise<Worker> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly langPath: string;

  constructor(private readonly options: TesseractOcrOptions) {
    this.langPath = options.langPath ?? bundledEnglishData();
  }

  recognize(image: Buffer, signal?: AbortSignal): Promise<OcrResult> {
    const job = this.queue.then(() => this.run(image, signal));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private start(): Promise<Worker> {
    // tesseract.js is loaded with the first image, not at start
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createWorker, OEM } = require('tesseract.js') as typeof import('tesseract.js');
    this.worker ??= createWorker('eng', OEM.LSTM_ONLY, {
      langPath: this.langPath,
      gzip: true,
      cacheMethod: 'none',
      // without a handler tesseract.js throws a worker's rejection on a later tick (an uncaught exception)
      errorHandler: () => undefined,
      logger: () => undefined,
    }).catch((err: unknown) => {
      this.worker = null;
      throw new OcrError(`The OCR engine did not start: ${message(err)}`, 'ocr_failed');
    });
    return this.worker;
  }

  private async run(image: Buffer, signal?: AbortSignal): Promise<OcrResult> {
    if (this.closed) throw new OcrError('The OCR engine is shut down', 'ocr_failed');
    signal?.throwIfAborted();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const worker = await this.start();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new OcrError(`OCR took longer than ${this.options.timeoutMs} ms`, 'ocr_timeout')),
        this.options.timeoutMs,
      );
      onAbort = () =>
        reject(signal?.reason instanceof Error ? signal.reason : new OcrError('OCR was cancelled', 'ocr_timeout'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const result = await Promise.race([worker.recognize(image), stop]);
      return { text: result.data.text ?? '', confidence: result.data.confidence ?? 0 };
    } catch (err) {
      if (err instanceof OcrError || (err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError') {
        // the job may still run in the worker: stop it, a fresh one starts with the next image
        await this.reset();
        throw err;
      }
      throw new OcrError(`The image could not be read: ${message(err)}`, 'image_unreadable');
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      if (!this.closed) {
        this.idleTimer = setTimeout(() => void this.reset(), this.options.idleMs);
        this.idleTimer.unref();
      }
    }
  }

  private async reset(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await (await w.catch(() => null))?.terminate().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.queue;
    await this.reset();
  }
}

const message = (err: unknown) =>
  (err instanceof Error ? err.message : typeof err === 'string' ? err : JSON.stringify(err)).replace(/^Error: /, '');
