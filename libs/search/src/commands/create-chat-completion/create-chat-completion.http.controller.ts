import { Body, Controller, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { CurrentPrincipal, EventStream, Principal } from '@larder/kernel';
import { AnswerPost, answerCommand } from '../../chat/json-or-stream';
import { CreateChatCompletionCommand } from './create-chat-completion.command';
import { CreateChatCompletionRequestDto } from './create-chat-completion.request.dto';

/** Chat completions are their own resource type in key scopes: `create` on `completions`. */
export const CHAT_SCOPE = { method: 'create', resourceType: 'completions' } as const;

/** The command's live sink of a streamed answer. */
const chatSink = (live: EventStream | null) =>
  live ? { start: () => live.start(), data: (x: Record<string, unknown>) => live.data(x) } : undefined;

/**
 * `POST /v1/chat/completions`, OpenAI's wire shape. With `stream: true`: `chat.completion.chunk` server-sent
 * events (unnamed `data:` lines, OpenAI style), ending with `data: [DONE]`; an error after the
 * stream opened arrives as an `error` event in the contract's error shape.
 */
@Controller('v1/chat')
export class CreateChatCompletionHttpController {
  constructor(private readonly commands: CommandBus) {}

  @AnswerPost(CHAT_SCOPE, 'completions')
  async create(
    @CurrentPrincipal() p: Principal,
    @Body() body: CreateChatCompletionRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const params = body.params();
    const command = (live: EventStream | null, signal: AbortSignal) =>
      new CreateChatCompletionCommand(p, params, chatSink(live), signal);
    await answerCommand(this.commands, req, res, params.stream, command, (live) => live.done());
  }
}
