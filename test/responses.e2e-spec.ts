import OpenAI, { toFile } from 'openai';
import {
  ChatCompletionsDouble,
  ChatCompletionRequestBody,
  startChatCompletionsDouble,
} from '@larder/ai/testing/chat-completions-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

const DOCS = [
  {
    name: 'sauerkraut.md',
    text: '# Sauerkraut\n\nShred white cabbage and mix it with two percent salt. Lactic fermentation turns the cabbage sour in about three weeks.\n',
  },
  {
    name: 'jam.md',
    text: '# Strawberry jam\n\nBoil strawberries with sugar and lemon juice until the jam sets on a cold plate.\n',
  },
];

const toolMessages = (b: ChatCompletionRequestBody) =>
  b.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

/** The model: searches once with file_search, then answers citing the sauerkraut passage by its number. */
const searchThenCite = (body: ChatCompletionRequestBody) => {
  const results = toolMessages(body);
  if (!results.length)
    return {
      toolCalls: [{ id: 'call_fs_1', name: 'file_search', arguments: { query: 'how long does sauerkraut ferment' } }],
      usage: { prompt_tokens: 40, completion_tokens: 8 },
    };
  const n = /\[(\d+)\] sauerkraut\.md/.exec(results.join('\n'))?.[1];
  return {
    content: `It turns sour in about three weeks <cite i="${n}"/>.`,
    usage: { prompt_tokens: 90, completion_tokens: 12 },
  };
};

describe("OpenAI's Responses API (the openai client unchanged, chat-model double): file_search over vector stores, citations, streaming, stored responses", () => {
  let double: ChatCompletionsDouble;
  let t: TestLarder;
  let openai: OpenAI;
  let key: string;
  let vs: string;
  const fileIds: Record<string, string> = {};

  beforeAll(async () => {
    double = await startChatCompletionsDouble();
    t = await startTestLarder({ env: { LARDER_LLM_URL: double.url, LARDER_LLM_MODEL: 'double-model' } });
    key = (await t.newOrganization('responses')).apiKey;
    openai = new OpenAI({ apiKey: key, baseURL: `${t.baseURL}/v1`, maxRetries: 0, timeout: 30_000 });
    vs = (await openai.vectorStores.create({ name: 'pantry' })).id;
    for (const d of DOCS) {
      const f = await openai.files.create({
        file: await toFile(Buffer.from(d.text), d.name, { type: 'text/markdown' }),
        purpose: 'assistants',
      });
      fileIds[d.name] = f.id;
      await openai.vectorStores.files.createAndPoll(vs, { file_id: f.id });
    }
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  it('answers with a file_search call and a cited message; output_text, annotations and included results are as OpenAI shapes them', async () => {
    double.handle(searchThenCite);
    const r = await openai.responses.create({
      model: 'gpt-4.1',
      input: 'How long does sauerkraut take?',
      tools: [{ type: 'file_search', vector_store_ids: [vs], max_num_results: 2 }],
      include: ['file_search_call.results'],
    });
    expect(r.object).toBe('response');
    expect(r.id).toMatch(/^resp_/);
    expect(r.status).toBe('completed');
    expect(r.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    const call = r.output[0] as OpenAI.Responses.ResponseFileSearchToolCall;
    expect(call.status).toBe('completed');
    expect(call.queries).toEqual(['how long does sauerkraut ferment']);
    expect(call.results!.length).toBeGreaterThan(0);
    expect(call.results!.length).toBeLessThanOrEqual(2);
    expect(call.results![0]).toMatchObject({ file_id: fileIds['sauerkraut.md'], filename: 'sauerkraut.md' });
    expect(call.results![0].text).toContain('cabbage');
    expect(r.output_text).toBe('It turns sour in about three weeks .');
    const text = (r.output[1] as OpenAI.Responses.ResponseOutputMessage)
      .content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.annotations).toEqual([
      expect.objectContaining({
        type: 'file_citation',
        file_id: fileIds['sauerkraut.md'],
        filename: 'sauerkraut.md',
        index: 'It turns sour in about three weeks '.length,
      }),
    ]);
    expect(r.usage).toMatchObject({ input_tokens: 130, output_tokens: 20, total_tokens: 150 });
    // the model saw file_search as a function with its store, and searched through it
    const first = double.requests[double.requests.length - 2].body;
    expect(first.tools!.map((x) => x.function.name)).toEqual(['file_search']);
  });

  it('without include, a file_search call carries no results', async () => {
    double.handle(searchThenCite);
    const r = await openai.responses.create({
      model: 'gpt-4.1',
      input: 'How long does sauerkraut take?',
      tools: [{ type: 'file_search', vector_store_ids: [vs] }],
    });
    expect((r.output[0] as OpenAI.Responses.ResponseFileSearchToolCall).results).toBeNull();
  });

  it('streams OpenAI events in order, ending with response.completed; the stream helper assembles the same response', async () => {
    double.handle(searchThenCite);
    const stream = openai.responses.stream({
      model: 'gpt-4.1',
      input: 'How long does sauerkraut take?',
      tools: [{ type: 'file_search', vector_store_ids: [vs] }],
    });
    const types: string[] = [];
    let deltas = '';
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'response.output_text.delta') deltas += e.delta;
    }
    const final = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types[1]).toBe('response.in_progress');
    expect(types[types.length - 1]).toBe('response.completed');
    for (const t of [
      'response.output_item.added',
      'response.file_search_call.in_progress',
      'response.file_search_call.searching',
      'response.file_search_call.completed',
      'response.content_part.added',
      'response.output_text.annotation.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
    ])
      expect(types).toContain(t);
    expect(types.indexOf('response.file_search_call.completed')).toBeLessThan(
      types.indexOf('response.content_part.added'),
    );
    expect(deltas).toBe('It turns sour in about three weeks .');
    const message = final.output.find((o) => o.type === 'message') as OpenAI.Responses.ResponseOutputMessage;
    expect((message.content[0] as OpenAI.Responses.ResponseOutputText).text).toBe(
      'It turns sour in about three weeks .',
    );
    expect(final.status).toBe('completed');
  });

  it('keeps a stored response: retrieve, input items, continue with previous_response_id, delete', async () => {
    double.handle(
      (body) =>
        `You said: ${String(body.messages[body.messages.length - 1].content)} (${body.messages.length} messages)`,
    );
    const first = await openai.responses.create({
      model: 'gpt-4.1',
      input: [{ role: 'user', content: 'Remember the word basil.' }],
      instructions: 'Be brief.',
    });
    expect(first.output_text).toBe('You said: Remember the word basil. (2 messages)');
    const again = await openai.responses.retrieve(first.id);
    expect(again.id).toBe(first.id);
    expect(again.output_text).toBe(first.output_text);
    const items = await openai.responses.inputItems.list(first.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'Remember the word basil.' }],
    });
    const second = await openai.responses.create({
      model: 'gpt-4.1',
      input: 'Which word?',
      previous_response_id: first.id,
    });
    // the earlier turn (without its instructions) comes first: user, assistant, then the new input
    const seen = double.requests[double.requests.length - 1].body.messages;
    expect(seen.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(second.previous_response_id).toBe(first.id);
    await openai.responses.delete(first.id);
    await expect(openai.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      openai.responses.create({ model: 'gpt-4.1', input: 'and?', previous_response_id: first.id }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('store: false is not kept; another organization never sees a response', async () => {
    double.handle(() => 'ok');
    const r = await openai.responses.create({ model: 'gpt-4.1', input: 'hello', store: false });
    await expect(openai.responses.retrieve(r.id)).rejects.toMatchObject({ status: 404 });
    const kept = await openai.responses.create({ model: 'gpt-4.1', input: 'hello' });
    const other = new OpenAI({
      apiKey: (await t.newOrganization('responses-other')).apiKey,
      baseURL: `${t.baseURL}/v1`,
      maxRetries: 0,
    });
    await expect(other.responses.retrieve(kept.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.delete(kept.id)).rejects.toMatchObject({ status: 404 });
  });

  it('returns function calls to the caller and takes their outputs in the next turn', async () => {
    double.handle((body) =>
      toolMessages(body).length
        ? `The weather is ${toolMessages(body)[0]}.`
        : { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Berlin' } }] },
    );
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: false,
      },
    ];
    const r = await openai.responses.create({ model: 'gpt-4.1', input: 'Weather in Berlin?', tools });
    const call = r.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ call_id: 'call_w1', name: 'get_weather', arguments: '{"city":"Berlin"}' });
    const next = await openai.responses.create({
      model: 'gpt-4.1',
      previous_response_id: r.id,
      input: [{ type: 'function_call_output', call_id: 'call_w1', output: 'sunny' }],
      tools,
    });
    expect(next.output_text).toBe('The weather is sunny.');
  });

  it('refuses what it does not serve with a 4xx and its loc, and answers 400 without a model', async () => {
    await expect(
      openai.responses.create({ model: 'gpt-4.1', input: 'x', tools: [{ type: 'web_search_preview' }] }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      openai.responses.create({
        model: 'gpt-4.1',
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x/y.png', detail: 'auto' }] }],
      }),
    ).rejects.toMatchObject({
      status: 422,
    });
    const bare = await startTestLarder();
    try {
      const noModel = new OpenAI({
        apiKey: (await bare.newOrganization('responses-bare')).apiKey,
        baseURL: `${bare.baseURL}/v1`,
        maxRetries: 0,
      });
      await expect(noModel.responses.create({ model: 'gpt-4.1', input: 'hello' })).rejects.toMatchObject({
        status: 400,
      });
    } finally {
      await bare.close();
    }
  });

  it('records each response as a completion event with its endpoint and usage', async () => {
    double.handle(() => 'recorded');
    const r = await openai.responses.create({ model: 'gpt-4.1', input: 'record me' });
    let found: Record<string, unknown> | undefined;
    for (
      const deadline = Date.now() + 20_000;
      !found && Date.now() < deadline;
      await new Promise((res) => setTimeout(res, 200))
    ) {
      const list = (await (
        await fetch(`${t.baseURL}/v1/events?event_type=completion&limit=50`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).json()) as { data: Array<Record<string, unknown>> };
      found = list.data.find((e) => JSON.stringify(e).includes(r.id));
    }
    expect(found).toMatchObject({
      type: 'completion',
      endpoint: 'responses',
      completion_id: r.id,
      token_usage: { total_tokens: r.usage!.total_tokens },
    });
  });
});
