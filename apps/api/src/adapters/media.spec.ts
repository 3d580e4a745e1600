import { OpenAiTranscriber } from '@larder/ai/http/openai.transcriber';
import { PocketsphinxTranscriber } from '@larder/ai/local/pocketsphinx.transcriber';
import { findExecutable } from '@larder/ai/local/run-tool';
import { loadConfig } from '../config';
import { createMedia } from './media';

describe('audio and video configuration', () => {
  it('an endpoint URL chooses the http transcriber; its key is never shown', async () => {
    const { transcriber } = createMedia(
      loadConfig({
        LARDER_TRANSCRIPTION_URL: 'http://127.0.0.1:8080/v1',
        LARDER_TRANSCRIPTION_API_KEY: 'sk-speech-config-secret',
        LARDER_TRANSCRIPTION_MODEL: 'Systran/faster-whisper-small',
      }),
    );
    expect(transcriber).toBeInstanceOf(OpenAiTranscriber);
    expect(transcriber!.engine).toBe('Systran/faster-whisper-small at http://127.0.0.1:8080/v1/audio/transcriptions');
    expect(JSON.stringify(transcriber)).not.toContain('sk-speech-config-secret');
    await transcriber!.close();
  });

  it('without an endpoint: PocketSphinx where it is installed; none when turned off', () => {
    const installed = findExecutable('pocketsphinx_continuous') !== null;
    const auto = createMedia(loadConfig({}));
    if (installed) expect(auto.transcriber).toBeInstanceOf(PocketsphinxTranscriber);
    else expect(auto.transcriber).toBeNull();
    expect(createMedia(loadConfig({ LARDER_TRANSCRIBER: 'none' })).transcriber).toBeNull();
    expect(() =>
      createMedia(loadConfig({ LARDER_TRANSCRIBER: 'pocketsphinx', LARDER_POCKETSPHINX: '/nowhere/ps' })),
    ).toThrow(
      /LARDER_TRANSCRIBER=pocketsphinx but \/nowhere\/ps is not installed \(apt-get install pocketsphinx pocketsphinx-en-us\)/,
    );
  });

  it('no ffmpeg, no media tools; bad settings stop the start naming the variable', () => {
    expect(createMedia(loadConfig({ LARDER_FFMPEG: '/nowhere/ffmpeg' })).tools).toBeNull();
    expect(() => loadConfig({ LARDER_TRANSCRIBER: 'whisper' })).toThrow(/LARDER_TRANSCRIBER must be one of/);
    expect(() => loadConfig({ LARDER_TRANSCRIBER: 'http' })).toThrow(/needs LARDER_TRANSCRIPTION_URL/);
    expect(() => loadConfig({ LARDER_TRANSCRIPTION_URL: 'ftp://x' })).toThrow(/must be an http\(s\) URL/);
    expect(() => loadConfig({ LARDER_TRANSCRIPTION_URL: 'https://u:p@h/v1' })).toThrow(/must not carry credentials/);
    expect(() => loadConfig({ LARDER_VIDEO_SCENE_THRESHOLD: '2' })).toThrow(/LARDER_VIDEO_SCENE_THRESHOLD/);
  });
});
