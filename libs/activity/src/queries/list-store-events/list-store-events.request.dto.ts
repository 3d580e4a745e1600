import { EventTypeOf, ListActivityRequestDto } from '../../list-activity.request.dto';
import { STORE_KINDS } from '../../activity.response';

export class ListStoreEventsRequestDto extends ListActivityRequestDto {
  @EventTypeOf(STORE_KINDS)
  event_type!: string;
}
