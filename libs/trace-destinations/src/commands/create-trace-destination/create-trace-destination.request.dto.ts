import { Check, Required } from '@larder/kernel';
import { TRACE_DESTINATION_KINDS, TraceDestinationKind } from '../../events';
import { TraceDestinationSettingsDto } from '../../trace-destination-settings.request.dto';

const absent = (v: unknown) => v === undefined || v === null;

/**
 * `TraceDestinationCreateParams` (Larder's own): a name, the kind, and that kind's settings object
 * (`langfuse: {host, public_key, secret_key}` or `otlp: {endpoint, protocol?, headers?}`), checked by
 * hand so that no error ever echoes a credential.
 */
export class CreateTraceDestinationRequestDto extends TraceDestinationSettingsDto {
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
}
