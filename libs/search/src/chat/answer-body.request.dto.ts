import { Allow } from 'class-validator';

/**
 * The fields OpenAI's chat completion and response bodies share, each taken as sent: the body that
 * extends this compiles them in its `params()`, which reports each problem with its location.
 */
export class AnswerBodyRequestDto {
  @Allow() model?: unknown;
  @Allow() tools?: unknown;
  @Allow() tool_choice?: unknown;
  @Allow() parallel_tool_calls?: unknown;
  @Allow() max_tool_calls?: unknown;
  @Allow() temperature?: unknown;
  @Allow() top_p?: unknown;
  @Allow() metadata?: unknown;
  @Allow() store?: unknown;
  @Allow() stream?: unknown;
  @Allow() include?: unknown;
}
