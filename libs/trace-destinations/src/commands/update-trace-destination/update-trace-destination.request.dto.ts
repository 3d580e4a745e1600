import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { TRACE_DESTINATION_KINDS, TraceDestinationKind } from '../../events';
import { TraceDestinationSettingsDto } from '../../trace-destination-settings.request.dto';

/**
 * `TraceDestinationUpdateParams` (Larder's own): every field optional; `langfuse` keys come as a pair and
 * rotate the credentials, `otlp.headers` replaces every header.
 */
export class UpdateTraceDestinationRequestDto extends TraceDestinationSettingsDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  name?: string;

  /** Only the destination's own kind (a kind never changes). */
  @IsOptional()
  @IsIn(TRACE_DESTINATION_KINDS)
  kind?: TraceDestinationKind;
}
