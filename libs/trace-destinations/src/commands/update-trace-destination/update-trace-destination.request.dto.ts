import { Transform } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { TRACE_DESTINATION_KINDS, TRACE_KINDS, TraceDestinationKind, TraceKind } from '../../events';

/**
 * `TraceDestinationUpdateParams` (Larder's own): every field optional. `langfuse` / `otlp` are checked
 * by hand (trace-destination.input.ts) so that no error ever echoes a credential.
 */
export class UpdateTraceDestinationRequestDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  name?: string;

  /** Only the destination's own kind (a kind never changes). */
  @IsOptional()
  @IsIn(TRACE_DESTINATION_KINDS)
  kind?: TraceDestinationKind;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TRACE_KINDS.length)
  @IsIn(TRACE_KINDS, { each: true })
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? [...new Set(value)] : value))
  trace_kinds?: TraceKind[];

  /** `{host?, public_key?, secret_key?}`: the keys come as a pair and rotate the credentials. */
  @IsOptional()
  @Allow()
  langfuse?: unknown;

  /** `{endpoint?, protocol?, headers?}`: `headers` replaces every header (and rotates the credentials). */
  @IsOptional()
  @Allow()
  otlp?: unknown;
}
