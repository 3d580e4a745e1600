import { Body, Controller, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { CurrentPrincipal, EventStream, Principal } from '@larder/kernel';
import { AnswerPost, answerCommand } from '../../chat/json-or-stream';
import { CHAT_SCOPE } from '../create-chat-completion/create-chat-completion.http.controller';
import { CreateResponseCommand } from './create-response.command';
import { CreateResponseRequestDto } from './create-response.request.dto';

/** The command's live sink of a streamed answer. */
const responseSink = (live: EventStream | null) =>
  live
    ? { start: () => live.start(), event: (type: string, x: Record<string, unknown>) => live.send(type, x) }
    : undefined;

/**
 * `POST /v1/responses` (OpenAI's Responses API; the same key scope as chat completions). With
 * `stream: true`: OpenAI's named events (`response.created` … `response.completed`), each a
 * `data:` line of JSON with its `type` and `sequence_number`; an error after the stream opened
 * arrives as an `error` event in the contract's error shape.
 */
@Controller('v1/responses')
export class CreateResponseHttpController {
  constructor(private readonly commands: CommandBus) {}

  @AnswerPost(CHAT_SCOPE)
  async create(
    @CurrentPrincipal() p: Principal,
    @Body() body: CreateResponseRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const params = body.params();
    const command = (live: EventStream | null, signal: AbortSignal) =>
      new CreateResponseCommand(p, params, responseSink(live), signal);
    await answerCommand(this.commands, req, res, params.stream, command, (live) => live.close());
  }
}
