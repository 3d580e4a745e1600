import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { NotFoundError } from '@larder/kernel';
import { foldEvents, Writes } from '@larder/event-store';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { STORES_CONFIG, StoresConfig } from '../stores.config';
import { storeExternalIdDecider } from '../store-external-id.aggregate';
import { storeFileDecider } from '../store-file.aggregate';
import { StoreFilesWriter } from '../store-files.writer';
import { storeExternalIdStream, storeFileStream } from '../streams';

/** How often shared external ids are looked for, and how long an external id must have been quiet. */
const EVERY_MS = 30_000;
const AFTER_START_MS = [500, 5_000, 15_000];
const QUIET_SECONDS = 2;

/**
 * Finishes what a crash cut off: an attach that claimed an external id and was added, but whose
 * process died before it removed the files it took the id over from, leaves two store files with the
 * id. Three times in the first seconds after a start, then every 30 s, the files that carry an external id another file has
 * the right to (the latest claimant still carrying it) are removed, as the attach would have removed
 * them.
 */
@Injectable()
export class ExternalIdReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ExternalIds');
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<unknown> | null = null;

  constructor(
    @Inject(STORES_CONFIG) private readonly config: StoresConfig,
    private readonly reader: StoreFilesReader,
    private readonly writes: Writes,
    private readonly files: StoreFilesWriter,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runWorker) return;
    const run = () => {
      if (this.running) return;
      this.running = this.reconcile()
        .then((n) => n && this.logger.log(`removed ${n} store file(s) that kept an external id another file holds`))
        .catch((err: Error) => this.logger.warn(`external id reconciliation failed: ${err.message}`))
        .finally(() => (this.running = null));
    };
    const every = setInterval(run, EVERY_MS);
    this.timers = [...AFTER_START_MS.map((ms) => setTimeout(run, ms)), every];
    for (const t of this.timers) t.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    await this.running;
  }

  /**
   * Removes the store files that carry an external id another file of their store has the right to:
   * the latest claimant still carrying it (the claim's holder, or, where the holder is gone, the one
   * whose claim came last); answers how many.
   */
  async reconcile(): Promise<number> {
    let removed = 0;
    for (const g of await this.reader.sharedExternalIds(QUIET_SECONDS, 100)) {
      const keeper = await this.keeper(g.storeId, g.externalId);
      if (!keeper) continue;
      for (const f of await this.reader.byExternalId(g.storeId, g.externalId)) {
        if (f.fileId === keeper || !(await this.carries(g.storeId, f.fileId, g.externalId))) continue;
        // the claims are read again right before: a claim made meanwhile decides on its own
        if ((await this.keeper(g.storeId, g.externalId)) !== keeper) break;
        await this.files
          .decide(
            {
              type: 'RemoveStoreFile',
              storeId: g.storeId,
              organizationId: g.organizationId,
              fileId: f.fileId,
              reason: 'overwritten',
            },
            'system',
            false,
          )
          .then(() => removed++)
          .catch((err) => {
            if (!(err instanceof NotFoundError)) throw err;
          });
      }
    }
    return removed;
  }

  /** The file with the right to the external id: of the files that claimed it, the latest that still carries it. */
  private async keeper(storeId: string, externalId: string): Promise<string | null> {
    const history = await this.writes.store.readStream(storeExternalIdStream(storeId, externalId));
    const state = foldEvents(storeExternalIdDecider, history);
    const claimants = [state.holder, ...history.map((e) => (e.data as { fileId?: string }).fileId).reverse()];
    for (const id of new Set(claimants)) if (id && (await this.carries(storeId, id, externalId))) return id;
    return null;
  }

  /** Whether the store file is in the store, added with this external id (its own stream says so). */
  private async carries(storeId: string, fileId: string, externalId: string): Promise<boolean> {
    const s = foldEvents(storeFileDecider, await this.writes.store.readStream(storeFileStream(storeId, fileId)));
    return s.present && s.added?.externalId === externalId;
  }
}
