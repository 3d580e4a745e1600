import { Transform } from 'class-transformer';
import { Allow, ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional } from 'class-validator';
import { Check, Required } from '@larder/kernel';
import { TRACE_DESTINATION_KINDS, TRACE_KINDS, TraceDestinationKind, TraceKind } from '../../events';

const absent = (v: unknown) => v === undefined || v === null;

/**
 * `TraceDestinationCreateParams` (Larder's own): a name, the kind, and that kind's settings object
 * (`langfuse: {host, public_key, secret_key}` or `otlp: {endpoint, protocol?, headers?}`), checked by
 * hand so that no error ever echoes a credential.
 */
export class CreateTraceDestinationRequestDto {
  @Required()
  @Check(
    'nonEmptyString',
    'string_type',
    'Input should be a non-empty string',
    (v) => absent(v) || (typeof v === 'string' && !!v.trim()),
  )
  @Check(
    'maxLength',
    'string_too_long',
    'String should have at most 256 characters',
    (v) => typeof v !== 'string' || v.length <= 256,
  )
  name!: string;

  @Required()
  @Check(
    'kind',
    'enum',
    "Input should be 'langfuse' or 'otlp'",
    (v) => absent(v) || (TRACE_DESTINATION_KINDS as readonly unknown[]).includes(v),
  )
  kind!: TraceDestinationKind;

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
