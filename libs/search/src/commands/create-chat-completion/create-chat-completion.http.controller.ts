import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { jsonOrStream } from '../../chat/json-or-stream';
import { CreateChatCompletionCommand } from './create-chat-completion.command';
import { CreateChatCompletionRequestDto } from './create-chat-completion.request.dto';
import type { ChatCompletionResponse } from './create-chat-completion.handler';

/** Chat completions are their own resource type in key scopes: `create` on `completions`. */
export const CHAT_SCOPE = { method: 'create', resourceType: 'completions' } as const;

/**
 * `POST /v1/chat/completions`, OpenAI's wire shape. With `stream: true`: `chat.completion.chunk` server-sent
 * events (unnamed `data:` lines, OpenAI style), ending with `data: [DONE]`; an error after the
 * stream opened arrives as an `error` event in the contract's error shape.
 */
@Controller('v1/chat')
export class CreateChatCompletionHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post('completions')
  @HttpCode(200)
  @RequireScope(CHAT_SCOPE)
  async create(
    @CurrentPrincipal() p: Principal,
    @Body() body: CreateChatCompletionRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const params = body.params();
    await jsonOrStream(
      req,
      res,
      params.stream,
      (live, signal) => {
        const sink = live
          ? { start: () => live.start(), data: (x: Record<string, unknown>) => live.data(x) }
          : undefined;
        return this.commands.execute<CreateChatCompletionCommand, ChatCompletionResponse>(
          new CreateChatCompletionCommand(p, params, sink, signal),
        );
      },
      (live) => live.done(),
    );
  }
}
