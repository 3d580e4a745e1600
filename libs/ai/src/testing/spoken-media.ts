import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { findExecutable } from '../local/run-tool';
import { textPng } from './text-image';

/** The programs the speech specs need that this machine lacks (empty when it has them all; `.ci/run` installs them). */
export function missingSpeechTools(): string[] {
  return ['espeak-ng', 'ffmpeg', 'ffprobe', 'pocketsphinx_continuous'].filter((p) => !findExecutable(p));
}

/**
 * A WAV of `sentence` spoken by espeak-ng. The Klatt voice at 140 words a minute is the one
 * PocketSphinx's US English model follows best: of "my computer needs a new battery. she bought a
 * chocolate cake for the birthday party." it hears "computer", "battery" and "birthday party" right.
 */
export function spokenWav(sentence: string): Buffer {
  return execFileSync('espeak-ng', ['-v', 'en-us+klatt4', '-s', '140', '--stdout', sentence], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * An MP4 (H.264, AAC) of `sentence` spoken over pictures: each entry of `screens` is the lines of
 * one picture (made by `textPng`, the same letters the OCR specs read), shown for `secondsEach` on a
 * white or black ground in turn, so that every picture starts a scene.
 */
export function spokenVideo(sentence: string, screens: string[][], secondsEach = 3): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'larder-spoken-'));
  try {
    writeFileSync(join(dir, 'speech.wav'), spokenWav(sentence));
    const inputs: string[] = [];
    screens.forEach((lines, i) => {
      writeFileSync(join(dir, `screen-${i}.png`), textPng(lines));
      inputs.push('-loop', '1', '-framerate', '10', '-t', String(secondsEach), '-i', join(dir, `screen-${i}.png`));
    });
    const fit = (i: number) =>
      `scale=960:540:force_original_aspect_ratio=decrease,pad=960:540:(ow-iw)/2:(oh-ih)/2:${i % 2 ? 'black' : 'white'},format=yuv420p`;
    const scaled = screens.map((_, i) => `[${i}:v]${fit(i)}[v${i}]`).join(';');
    const graph = `${scaled};${screens.map((_, i) => `[v${i}]`).join('')}concat=n=${screens.length}:v=1:a=0[v]`;
    execFileSync('ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      ...inputs,
      '-i',
      join(dir, 'speech.wav'),
      '-filter_complex',
      graph,
      '-map',
      '[v]',
      '-map',
      `${screens.length}:a`,
      '-c:v',
      'libx264',
      '-crf',
      '18',
      '-c:a',
      'aac',
      '-y',
      join(dir, 'clip.mp4'),
    ]);
    return readFileSync(join(dir, 'clip.mp4'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
