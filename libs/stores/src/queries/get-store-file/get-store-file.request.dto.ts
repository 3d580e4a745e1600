import { IsOptional, ValidateBy } from 'class-validator';

/**
 * Which chunks `return_chunks` asks for: `true` (all: null), `false` or absent (none: undefined), or
 * chunk indices (repeated values or comma-separated); 'invalid' for anything else.
 */
export function chunkSelection(rc: unknown): number[] | null | undefined | 'invalid' {
  const list = rc === undefined ? [] : Array.isArray(rc) ? rc.map((x) => `${x as string}`) : [`${rc as string}`];
  if (list.length === 1 && ['true', 'false'].includes(list[0])) return list[0] === 'true' ? null : undefined;
  if (!list.length) return undefined;
  const indices = list.flatMap((x) => x.split(',')).map((x) => Number(x));
  return indices.some((n) => !Number.isInteger(n) || n < 0) ? 'invalid' : indices;
}

/** `GET …/files/{file_identifier}` query. */
export class GetStoreFileRequestDto {
  /** `true`/`false`, or one or more chunk indices (`return_chunks=0&return_chunks=3`). */
  @IsOptional()
  @ValidateBy({
    name: 'chunkSelection',
    validator: {
      validate: (v) => chunkSelection(v) !== 'invalid',
      defaultMessage: () => 'return_chunks must be a boolean or a list of chunk indices',
    },
  })
  return_chunks?: string | string[];
}
