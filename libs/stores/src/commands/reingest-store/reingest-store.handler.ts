import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ForbiddenError } from '@larder/kernel';
import { StoreFilesWriter } from '../../store-files.writer';
import { IngestionWorker } from '../../ingestion/ingestion.worker';
import { ReingestStoreCommand } from './reingest-store.command';

export interface ReingestStoreResponse {
  message: string;
  jobs_created: number;
}

/** Admin re-ingestion: one job per selected store file, through the normal ingestion path. */
@CommandHandler(ReingestStoreCommand)
export class ReingestStoreHandler implements ICommandHandler<ReingestStoreCommand, ReingestStoreResponse> {
  constructor(
    private readonly writer: StoreFilesWriter,
    private readonly worker: IngestionWorker,
  ) {}

  async execute(c: ReingestStoreCommand): Promise<ReingestStoreResponse> {
    // the root organization's admin keys are the operator; any other admin key acts in its own organization only
    if (!c.caller.operator && c.organizationId !== c.caller.organizationId) {
      throw new ForbiddenError('An admin key acts only in its own organization; only the operator (a root admin key) acts on others.');
    }
    const jobs = await this.writer.reingest(c.organizationId, c.caller.apiKeyId, c.storeIdentifier, c.statuses, c.billable);
    this.worker.nudge();
    return { message: `${jobs} store file${jobs === 1 ? '' : 's'} queued for re-ingestion`, jobs_created: jobs };
  }
}
