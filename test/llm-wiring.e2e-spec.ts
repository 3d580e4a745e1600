import { Llm, LLM } from '@larder/ai';
import { ChatCompletionsDouble, startChatCompletionsDouble } from '@larder/ai/testing/chat-completions-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(60_000);

/** The LLM port as the app binds it: the configured OpenAI-compatible endpoint, or null without one. */
describe('LLM wiring', () => {
  let double: ChatCompletionsDouble;
  let larder: TestLarder | null = null;

  beforeAll(async () => {
    double = await startChatCompletionsDouble({ apiKey: 'sk-wiring' });
  });
  afterEach(async () => {
    await larder?.close();
    larder = null;
  });
  afterAll(() => double.close());

  it('binds LLM to the endpoint of LARDER_LLM_URL with its model and key', async () => {
    larder = await startTestLarder({
      env: { LARDER_LLM_URL: double.url, LARDER_LLM_MODEL: 'wired-model', LARDER_LLM_API_KEY: 'sk-wiring' },
    });
    const llm = larder.larder.app.get<symbol, Llm | null>(LLM, { strict: false });
    expect(llm?.model).toBe('wired-model');
    double.reply('wired');
    const response = await llm!.chat({ messages: [{ role: 'user', content: 'ping' }] });
    expect(response.message.content).toBe('wired');
    expect(double.requests.at(-1)?.body.model).toBe('wired-model');
    expect(double.requests.at(-1)?.headers.authorization).toBe('Bearer sk-wiring');
  });

  it('binds LLM to null without LARDER_LLM_URL', async () => {
    larder = await startTestLarder();
    expect(larder.larder.app.get(LLM, { strict: false })).toBeNull();
  });
});
