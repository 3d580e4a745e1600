import { ArgumentMetadata, Injectable, Param, PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from './errors';
import { isUuid } from './ids';

/**
 * A path parameter the contract types as a UUID: anything else is a 422 at `["path", <name>]`
 * (pydantic's `uuid_parsing`), before any lookup, whichever route names it.
 */
@Injectable()
export class ParseUuidParamPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, metadata: ArgumentMetadata): string {
    if (typeof value === 'string' && isUuid(value)) return value;
    throw new ValidationFailedError([
      { loc: ['path', metadata.data ?? 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: value },
    ]);
  }
}

/** `@UuidParam('file_id') id: string`: the route parameter, refused with a 422 unless it is a UUID. */
export const UuidParam = (name: string): ParameterDecorator => Param(name, ParseUuidParamPipe);
