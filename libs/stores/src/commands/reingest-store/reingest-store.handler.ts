import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ForbiddenError, NotFoundError, Position } from '@larder/kernel';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
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
    private readonly reader: StoreFilesReader,
  ) {}

  async execute(c: ReingestStoreCommand): Promise<ReingestStoreResponse> {
    // the root organization's admin keys are the operator; any other admin key acts in its own organization only
    if (!c.caller.operator && c.organizationId !== c.caller.organizationId) {
      throw new ForbiddenError(
        'An admin key acts only in its own organization; only the operator (a root admin key) acts on others.',
      );
    }
    const jobs = await this.reingest(c.organizationId, c.caller.apiKeyId, c.storeIdentifier, c.statuses, c.billable);
    this.worker.nudge();
    return { message: `${jobs} store file${jobs === 1 ? '' : 's'} queued for re-ingestion`, jobs_created: jobs };
  }

  /** Queues every store file of the store (in `statuses`, when given) for ingestion again; answers how many. */
  private async reingest(
    organizationId: string,
    actor: string,
    storeIdentifier: string,
    statuses: string[] | null,
    billable: boolean,
  ): Promise<number> {
    const s = await this.writer.resolveStore(organizationId, storeIdentifier);
    this.writer.assertWritable(s);
    let last: Position | null = null;
    let n = 0;
    for (const f of await this.reader.allOfStore(s.id)) {
      if (statuses && !statuses.includes(f.status)) continue;
      const r = await this.writer
        .decide(
          {
            type: 'ReingestStoreFile',
            storeId: s.id,
            organizationId,
            fileId: f.fileId,
            filename: f.filename,
            externalId: f.externalId,
            metadata: f.metadata,
            billable,
          },
          actor,
          false,
        )
        .catch((err: Error) => {
          if (err instanceof NotFoundError) return null; // removed meanwhile
          throw err;
        });
      if (r?.position) last = r.position;
      if (r) n++;
    }
    if (last) await this.writer.settle(last);
    return n;
  }
}
