import { existsSync } from 'fs';
import { join } from 'path';
import { Transcriber, TranscriptionError, TranscriptSegment } from '../transcriber.port';
import { runTool, ToolError } from './run-tool';

export interface PocketsphinxOptions {
  /** `pocketsphinx_continuous` (Debian's `pocketsphinx` package), as a path. */
  program: string;
  /** Holds `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict` (Debian's `pocketsphinx-en-us`). */
  modelDir: string;
  /** Longest one file may take. */
  timeoutMs: number;
}

/** Debian's `pocketsphinx-en-us` model directory. */
export const DEBIAN_POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

/** A segment is cut after this many seconds of words even where the speaker does not pause. */
const MAX_SEGMENT_SECONDS = 15;

/**
 * Offline speech recognition with CMU PocketSphinx (`pocketsphinx_continuous -infile x.wav -time yes`,
 * the US English model): a child process per file, never a shell, killed past `timeoutMs` or when the
 * attempt is cancelled. It prints each utterance (speech between pauses) followed by its words with
 * their start and end times; the words of an utterance become one segment (cut every 15 s), fillers
 * (`<s>`, `<sil>`, `[NOISE]`, `++…++`) left out.
 */
export class PocketsphinxTranscriber implements Transcriber {
  readonly engine = 'pocketsphinx en-us';

  constructor(private readonly options: PocketsphinxOptions) {}

  async transcribe(wavPath: string, signal?: AbortSignal): Promise<TranscriptSegment[]> {
    const dir = this.options.modelDir;
    const model = existsSync(join(dir, 'en-us'))
      ? ['-hmm', join(dir, 'en-us'), '-lm', join(dir, 'en-us.lm.bin'), '-dict', join(dir, 'cmudict-en-us.dict')]
      : [];
    try {
      const { stdout } = await runTool(
        this.options.program,
        ['-infile', wavPath, '-time', 'yes', '-logfn', '/dev/null', ...model],
        { timeoutMs: this.options.timeoutMs, maxOutputBytes: 64 * 1024 * 1024, signal },
      );
      return parsePocketsphinxTimes(stdout);
    } catch (err) {
      if (err instanceof ToolError)
        throw new TranscriptionError(
          `Speech recognition: ${err.message}`,
          err.reason === 'timeout' ? 'transcription_timeout' : 'transcription_failed',
          err.reason === 'timeout',
        );
      throw err;
    }
  }

  async close(): Promise<void> {}
}

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;

/** The segments of `pocketsphinx_continuous -time yes` output (hypothesis lines are skipped; word lines have four fields). */
export function parsePocketsphinxTimes(output: string): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let words: Array<{ word: string; start: number; end: number }> = [];
  const flush = () => {
    if (words.length)
      segments.push({
        start: words[0].start,
        end: words[words.length - 1].end,
        text: words.map((w) => w.word).join(' '),
      });
    words = [];
  };
  for (const line of output.split('\n')) {
    const m = WORD_LINE.exec(line.trim());
    if (!m) continue;
    const [, token, start, end] = m;
    if (token === '<s>' || token === '</s>') {
      flush();
      continue;
    }
    if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(token)) continue;
    const word = token.replace(/\(\d+\)$/, '');
    if (words.length && Number(end) - words[0].start > MAX_SEGMENT_SECONDS) flush();
    words.push({ word, start: Number(start), end: Number(end) });
  }
  flush();
  return segments;
}
