import { Inject, Optional } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock, DomainError, ID_GENERATOR, IdGenerator } from '@larder/kernel';
import { LLM, Llm, LlmMessage } from '@larder/ai';
import { SearchActivity } from '../../search-activity';
import { hostedToolFunction } from '../../chat/hosted-tool-functions';
import { HostedTools } from '../../chat/hosted-tools';
import { chatMessage, Conversations } from '../../chat/conversations';
import { hostedToolRules, runToolLoop } from '../../chat/tool-loop';
import type { CitedSource, FileCitation } from '../../chat/citations';
import { CompletionChunks } from '../../chat/completion-chunks';
import { recordCompletion } from '../../chat/completion-activity';
import type { StoredChatMessage } from '../../chat/events';
import { IssuedToolTicket, ToolTickets } from '../../tool-tickets/tool-tickets';
import { completionSummary } from '../../chat/completion-summary';
import { CreateChatCompletionCommand } from './create-chat-completion.command';

/** No model is configured: chat completions need one (400, never a made-up answer). */
export class LlmNotConfiguredError extends DomainError {
  readonly status = 400;
  readonly type = 'llm_not_configured';
  constructor() {
    super(
      'Chat completions need a language model, and none is configured: set LARDER_LLM_URL (an OpenAI-compatible base URL such as http://127.0.0.1:11434/v1) and LARDER_LLM_MODEL, then restart Larder',
    );
  }
}

export interface ChatCompletionResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> | null;
      reasoning_content: null;
      annotations: FileCitation[];
    };
    finish_reason: 'stop' | 'tool_calls' | 'length';
    logprobs: null;
  }>;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  };
  metadata: Record<string, string> | null;
  title: null;
  hosted_tool_calls: Record<string, unknown>[];
  context_management: null;
  tool_tickets: IssuedToolTicket[];
  transcript: null;
  root_completion_id: string;
  previous_completion_id: string | null;
}

/**
 * `POST /v1/chat/completions`: the conversation (a stored one continued with
 * `previous_completion_id`, then the request's messages) goes to the configured model with the
 * declared tools; hosted store tools run here in a loop; client function tool calls come back with
 * one-shot tool tickets. One `completion` activity event per request; `store: true` keeps the turn.
 */
@CommandHandler(CreateChatCompletionCommand)
export class CreateChatCompletionHandler implements ICommandHandler<
  CreateChatCompletionCommand,
  ChatCompletionResponse
> {
  constructor(
    private readonly hosted: HostedTools,
    private readonly conversations: Conversations,
    private readonly tickets: ToolTickets,
    private readonly activity: SearchActivity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Optional() @Inject(LLM) private readonly llm: Llm | null,
  ) {}

  async execute({ principal: p, params, sink, signal }: CreateChatCompletionCommand): Promise<ChatCompletionResponse> {
    if (!this.llm) throw new LlmNotConfiguredError();
    const llm = this.llm;
    const t0 = performance.now();
    const startedAt = this.clock.now();
    const completionId = `chatcmpl-${this.ids.uuid()}`;
    const created = Math.floor(startedAt.getTime() / 1000);
    const chunks = sink ? new CompletionChunks(sink, completionId, created, llm.model) : undefined;
    const history = params.previousCompletionId ? await this.conversations.load(p, params.previousCompletionId) : null;
    const rootCompletionId = history?.rootCompletionId ?? completionId;
    const sources: CitedSource[] = [...(history?.sources ?? [])];
    const earlierSources = sources.length;

    const messages: LlmMessage[] = [];
    if (params.hostedTools.length) messages.push({ role: 'system', content: hostedToolRules(params.hostedTools) });
    messages.push(...(history?.messages ?? []).map(chatMessage));
    messages.push(...params.messages);
    const tools = [
      ...params.hostedTools.map((h) => hostedToolFunction(h, (h.storeIdentifiers ?? []).join(', '))),
      ...params.functionTools,
    ];

    let defaults: Promise<string[]> | null = null;
    const defaultStores = () => (defaults ??= this.hosted.defaultStores(p));
    chunks?.open();
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
      maxTokens: params.maxTokens,
      sources,
      runHosted: (decl, call) =>
        this.hosted.run(p, completionId, decl, call, sources, { include: params.include, signal, defaultStores }),
      chunks,
      signal,
      now: () => this.clock.now(),
    });
    if (run.finishReason === 'client_disconnected') {
      // recorded (and billed) for what was done until the hang-up; nothing is stored or sent
      recordCompletion(this.activity, p, run, {
        completionId,
        rootCompletionId,
        previousCompletionId: params.previousCompletionId,
        model: params.model ?? llm.model,
        messagesCount: messages.length,
        stream: !!chunks,
        stored: false,
        startedAt,
        t0,
        metadata: params.metadata,
        summary: completionSummary(messages, run.content),
        at: this.clock.now().toISOString(),
      });
      throw signal?.reason instanceof Error ? signal.reason : new Error('the client hung up');
    }
    const tickets = run.clientToolCalls.map((c) => this.tickets.issue(p, completionId, c.id));
    const usage = {
      prompt_tokens: run.usage.promptTokens,
      completion_tokens: run.usage.completionTokens,
      total_tokens: run.usage.totalTokens,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    const response: ChatCompletionResponse = {
      id: completionId,
      object: 'chat.completion',
      created,
      model: run.responseModel,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: run.content,
            tool_calls: run.clientToolCalls.length ? run.clientToolCalls : null,
            reasoning_content: null,
            annotations: run.annotations,
          },
          finish_reason: run.finishReason,
          logprobs: null,
        },
      ],
      usage,
      metadata: params.metadata,
      title: null,
      hosted_tool_calls: run.hostedItems,
      context_management: null,
      tool_tickets: tickets,
      transcript: null,
      root_completion_id: rootCompletionId,
      previous_completion_id: params.previousCompletionId,
    };

    const at = this.clock.now().toISOString();
    if (params.store) {
      const stored: StoredChatMessage[] = [...params.messages, ...run.added].map(chatMessage);
      await this.conversations.save({
        type: 'ChatCompletionStored',
        data: {
          completionId,
          organizationId: p.organizationId,
          apiKeyId: p.apiKeyId,
          rootCompletionId,
          previousCompletionId: params.previousCompletionId,
          model: run.responseModel,
          messages: stored,
          sources: sources.slice(earlierSources),
          finishReason: run.finishReason,
          metadata: params.metadata,
          at,
        },
      });
    }
    recordCompletion(this.activity, p, run, {
      completionId,
      rootCompletionId,
      previousCompletionId: params.previousCompletionId,
      model: params.model ?? llm.model,
      messagesCount: messages.length,
      stream: !!chunks,
      stored: params.store,
      startedAt,
      t0,
      metadata: params.metadata,
      summary: completionSummary(messages, run.content),
      at,
    });
    chunks?.finish(run.finishReason, run.annotations, {
      usage,
      tool_tickets: tickets,
      root_completion_id: rootCompletionId,
    });
    return response;
  }
}
