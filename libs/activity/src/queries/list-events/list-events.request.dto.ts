import { Allow } from 'class-validator';
import { ACTIVITY_KINDS } from '../../events';
import { EventTypeOf, ListActivityRequestDto } from '../../list-activity.request.dto';

export class ListEventsRequestDto extends ListActivityRequestDto {
  @EventTypeOf(ACTIVITY_KINDS)
  event_type!: string;

  /** Narrows to one store (id or name). */
  @Allow()
  store_identifier?: string;
}
