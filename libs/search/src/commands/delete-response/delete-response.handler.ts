import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '@larder/kernel';
import { StoredResponses } from '../../responses/stored-responses';
import { DeleteResponseCommand } from './delete-response.command';

export interface ResponseDeletedBody {
  id: string;
  object: 'response';
  deleted: true;
}

/** Deletes a stored response: it is no longer retrieved or continued (404 when absent or already deleted). */
@CommandHandler(DeleteResponseCommand)
export class DeleteResponseHandler implements ICommandHandler<DeleteResponseCommand, ResponseDeletedBody> {
  constructor(
    private readonly stored: StoredResponses,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, responseId }: DeleteResponseCommand): Promise<ResponseDeletedBody> {
    await this.stored.delete(principal, responseId, this.clock.now());
    return { id: responseId, object: 'response', deleted: true };
  }
}
