import { Inject, Optional } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@larder/kernel';
import { LLM, Llm, LlmMessage } from '@larder/ai';
import { SearchActivity } from '../../search-activity';
import { hostedToolFunction } from '../../chat/hosted-tool-functions';
import { HostedTools } from '../../chat/hosted-tools';
import { hostedToolRules, runToolLoop } from '../../chat/tool-loop';
import type { CitedSource } from '../../chat/citations';
import type { StoredChatMessage } from '../../chat/events';
import { ResponseOutput } from '../../responses/response-output';
import { StoredResponses } from '../../responses/stored-responses';
import { chatMessage } from '../../chat/conversations';
import { LlmNotConfiguredError } from '../create-chat-completion/create-chat-completion.handler';
import { recordCompletion } from '../../chat/completion-activity';
import type { ChatToolChoice } from '../create-chat-completion/create-chat-completion.request.dto';
import { CreateResponseCommand } from './create-response.command';
import { completionSummary } from '../../chat/completion-summary';
import type { ResponseParams } from './create-response.request.dto';

export type ResponseObject = Record<string, unknown> & {
  id: string;
  object: 'response';
  output: Array<Record<string, unknown>>;
};

const toolChoiceOut = (c: ChatToolChoice | null) =>
  c === null
    ? 'auto'
    : typeof c === 'string'
      ? c
      : 'function' in c
        ? { type: 'function', name: c.function.name }
        : { type: c.type };

/** The response object's fields that come from the request (the same before and after the model ran). */
function requestFields(params: ResponseParams) {
  return {
    instructions: params.instructions,
    max_output_tokens: params.maxOutputTokens,
    max_tool_calls: params.maxToolCalls,
    parallel_tool_calls: params.parallelToolCalls ?? true,
    previous_response_id: params.previousResponseId,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: params.store,
    temperature: params.temperature ?? 1,
    text: { format: { type: 'text' } },
    tool_choice: toolChoiceOut(params.toolChoice),
    tools: params.tools,
    top_p: params.topP ?? 1,
    truncation: 'disabled',
    user: params.user,
    metadata: params.metadata ?? {},
  };
}

/**
 * `POST /v1/responses`: OpenAI's Responses API over the configured chat model, with the hosted
 * `file_search` tool over Larder's stores (the vector stores of the same API) and function tools. The
 * conversation (a stored one continued with `previous_response_id`, then `instructions` and the input)
 * goes through the same tool loop as chat completions; the answer's citation markers become
 * `file_citation` annotations. One `completion` activity event per request; `store` (default true)
 * keeps the response for retrieval and continuation.
 */
@CommandHandler(CreateResponseCommand)
export class CreateResponseHandler implements ICommandHandler<CreateResponseCommand, ResponseObject> {
  constructor(
    private readonly hosted: HostedTools,
    private readonly stored: StoredResponses,
    private readonly activity: SearchActivity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Optional() @Inject(LLM) private readonly llm: Llm | null,
  ) {}

  async execute({ principal: p, params, sink, signal }: CreateResponseCommand): Promise<ResponseObject> {
    if (!this.llm) throw new LlmNotConfiguredError();
    const llm = this.llm;
    const t0 = performance.now();
    const startedAt = this.clock.now();
    const id = `resp_${this.ids.uuid().replace(/-/g, '')}`;
    const createdAt = Math.floor(startedAt.getTime() / 1000);
    const history = params.previousResponseId ? await this.stored.conversation(p, params.previousResponseId) : null;
    const sources: CitedSource[] = [...(history?.sources ?? [])];
    const earlierSources = sources.length;

    const messages: LlmMessage[] = [];
    if (params.hostedTools.length) messages.push({ role: 'system', content: hostedToolRules(params.hostedTools) });
    // instructions hold for this response only: a continuation does not carry them over
    if (params.instructions) messages.push({ role: 'system', content: params.instructions });
    messages.push(...(history?.messages ?? []).map(chatMessage));
    messages.push(...params.messages);
    const tools = [
      ...params.hostedTools.map((h) => hostedToolFunction(h, (h.storeIdentifiers ?? []).join(', '))),
      ...params.functionTools,
    ];

    const output = new ResponseOutput(
      () => this.ids.uuid().replace(/-/g, ''),
      params.include.includes('file_search_call.results'),
      sink,
    );
    const base = {
      id,
      object: 'response' as const,
      created_at: createdAt,
      model: params.model ?? llm.model,
      ...requestFields(params),
    };
    if (sink) {
      sink.start();
      const pending = {
        ...base,
        status: 'in_progress',
        error: null,
        incomplete_details: null,
        output: [],
        usage: null,
      };
      output.emit('response.created', { response: pending });
      output.emit('response.in_progress', { response: pending });
    }
    let defaults: Promise<string[]> | null = null;
    const run = await runToolLoop({
      llm,
      messages,
      hosted: params.hostedTools,
      tools,
      toolChoice: params.toolChoice,
      parallelToolCalls: params.parallelToolCalls,
      maxToolCalls: params.maxToolCalls,
      temperature: params.temperature,
      topP: params.topP,
      maxTokens: params.maxOutputTokens,
      sources,
      runHosted: (decl, call) =>
        this.hosted.run(p, id, decl, call, sources, {
          include: params.include,
          signal,
          defaultStores: () => (defaults ??= this.hosted.defaultStores(p)),
        }),
      chunks: output,
      streamModel: !!sink,
      signal,
      now: () => this.clock.now(),
    });
    const facts = {
      completionId: id,
      endpoint: 'responses' as const,
      rootCompletionId: id,
      previousCompletionId: params.previousResponseId,
      model: params.model ?? llm.model,
      messagesCount: messages.length,
      stream: !!sink,
      startedAt,
      t0,
      metadata: params.metadata,
    };
    if (run.finishReason === 'client_disconnected') {
      // recorded (and billed) for what was done until the hang-up; nothing is stored or sent
      recordCompletion(this.activity, p, run, {
        ...facts,
        stored: false,
        summary: completionSummary(messages, run.content),
        at: this.clock.now().toISOString(),
      });
      throw signal?.reason instanceof Error ? signal.reason : new Error('the client hung up');
    }
    const items = output.finish(run.content, run.annotations);
    const usage = {
      input_tokens: run.usage.promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: run.usage.completionTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: run.usage.totalTokens,
    };
    const incomplete = run.finishReason === 'length';
    const response: ResponseObject = {
      ...base,
      model: run.responseModel,
      status: incomplete ? 'incomplete' : 'completed',
      error: null,
      incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
      output: items,
      usage,
    };

    const at = this.clock.now().toISOString();
    if (params.store) {
      const stored: StoredChatMessage[] = [...params.messages, ...run.added].map(chatMessage);
      const inputItems = params.inputItems.map((item, i) => ({
        id: `${item.type === 'message' ? 'msg' : 'fc'}_${id.slice(5)}_${i}`,
        ...item,
        status: 'completed',
      }));
      await this.stored.save({
        type: 'ResponseStored',
        data: {
          responseId: id,
          organizationId: p.organizationId,
          apiKeyId: p.apiKeyId,
          previousResponseId: params.previousResponseId,
          response,
          inputItems,
          messages: stored,
          sources: sources.slice(earlierSources),
          at,
        },
      });
    }
    recordCompletion(this.activity, p, run, {
      ...facts,
      stored: params.store,
      summary: completionSummary(messages, run.content),
      at,
    });
    output.emit(incomplete ? 'response.incomplete' : 'response.completed', { response });
    return response;
  }
}
