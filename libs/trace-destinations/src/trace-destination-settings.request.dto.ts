import { Transform } from 'class-transformer';
import { Allow, ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional } from 'class-validator';
import { TRACE_KINDS, TraceKind } from './events';

/**
 * The settings a trace destination's create and update share. `langfuse` (`{host, public_key,
 * secret_key}`) and `otlp` (`{endpoint, protocol?, headers?}`) are checked by hand
 * (trace-destination.input.ts) so that no error ever echoes a credential.
 */
export class TraceDestinationSettingsDto {
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  /** Default: every kind. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TRACE_KINDS.length)
  @IsIn(TRACE_KINDS, { each: true })
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? [...new Set(value)] : value))
  trace_kinds?: TraceKind[];

  @IsOptional()
  @Allow()
  langfuse?: unknown;

  @IsOptional()
  @Allow()
  otlp?: unknown;
}
