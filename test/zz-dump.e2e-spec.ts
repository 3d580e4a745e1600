import { writeFileSync } from 'fs';
import { startChatCompletionsDouble } from '@larder/ai/testing/chat-completions-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { driveEveryOperation, startCollector } from './support/openapi-samples';
jest.setTimeout(120_000);
it('dumps', async () => {
  const double = await startChatCompletionsDouble();
  const col = await startCollector();
  const t: TestLarder = await startTestLarder({ env: { LARDER_LLM_URL: double.url, LARDER_LLM_MODEL: 'double-model', LARDER_OUTBOUND_ALLOW: `127.0.0.1:${col.port}` } });
  try {
    const o = await t.newOrganization('openapi');
    const t0 = Date.now();
    const samples = await driveEveryOperation(t, o, col.url).catch((e) => { console.log(String(e)); throw e; });
    console.log('drive ms', Date.now() - t0);
    writeFileSync('/tmp/oa16/samples.json', JSON.stringify(samples, null, 1));
  } finally { await t.close(); await double.close(); await col.close(); }
});
