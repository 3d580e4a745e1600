import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/**
 * `@SegmentsParam('model') model: string` on a route `…/*model` (Express 5 gives a wildcard one
 * value per path segment): the identifier joined back, so that one with slashes is the same sent as
 * it is (`docs/a.md`, as the Python client does) or encoded (`docs%2Fa.md`). Read from the request
 * itself, as the global validation pipe would turn the segments into a comma-joined string.
 */
export const SegmentsParam = createParamDecorator((name: string, ctx: ExecutionContext): string => {
  const value = (ctx.switchToHttp().getRequest<Request>().params as Record<string, string | string[]>)[name];
  return Array.isArray(value) ? value.join('/') : value;
});
