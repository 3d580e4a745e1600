import { Injectable } from '@nestjs/common';
import { ConflictError, WrongExpectedRevisionError } from '@larder/kernel';
import { commandHandler, foldEvents, Writes } from '@larder/event-store';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import {
  HolderStatus,
  storeExternalIdDecider,
  StoreExternalIdCommand,
  StoreExternalIdState,
} from '../../store-external-id.aggregate';
import { storeFileDecider } from '../../store-file.aggregate';
import { StoreExternalIdClaimed } from '../../events';
import { storeExternalIdStream, storeFileStream } from '../../streams';

const handleExternalId = commandHandler(
  storeExternalIdDecider,
  (c: StoreExternalIdCommand) => storeExternalIdStream(c.storeId, c.externalId),
  { retries: 0 },
);
// every concurrent upsert of one external id competes for its stream: each round lets one through
const CLAIM_ROUNDS = 200;

export interface ExternalIdClaim {
  /** Whether this claim was appended (false: the file held the id already). */
  appended: boolean;
  /** The files that held the id before and are to be removed once the claimant is added. */
  superseded: string[];
}

/** The `(store, external_id)` claims: claim before the add, release when the add failed, read the holder. */
@Injectable()
export class StoreExternalIds {
  constructor(
    private readonly writes: Writes,
    private readonly reader: StoreFilesReader,
  ) {}

  /**
   * Claims `externalId` for `fileId` (whose store-file stream is at `fileRevision`), or refuses with a
   * 409 and appends nothing. Each round reads the holder's status for the claim stream as it is and is
   * appended only if no other claim came in between.
   */
  async claim(
    organizationId: string,
    actor: string,
    storeId: string,
    storeName: string,
    externalId: string,
    fileId: string,
    fileRevision: number,
    overwrite: boolean,
  ): Promise<ExternalIdClaim> {
    // Files that held the external id before claims existed (read before the claim: none of them is a later claimant's).
    const legacy = (await this.reader.byExternalId(storeId, externalId))
      .filter((f) => f.fileId !== fileId)
      .map((f) => f.fileId);
    const stream = storeExternalIdStream(storeId, externalId);
    for (let round = 1; ; round++) {
      const history = await this.writes.store.readStream(stream);
      if (!history.length && legacy.length && !overwrite)
        throw new ConflictError(`A file with external_id '${externalId}' already exists in store ${storeName}`);
      const state = foldEvents(storeExternalIdDecider, history);
      const holderStatus =
        state.holder && state.holder !== fileId ? await this.statusOf(storeId, externalId, state) : 'gone';
      try {
        const r = await this.writes.run(
          handleExternalId,
          {
            type: 'ClaimStoreExternalId',
            organizationId,
            storeId,
            externalId,
            fileId,
            fileRevision,
            overwrite,
            seen: history.length,
            holderStatus,
            now: this.writes.now(),
          },
          { orgId: organizationId, actor },
        );
        const previous = (r.events[0]?.data as { previousFileId?: string | null } | undefined)?.previousFileId ?? null;
        const superseded = new Set([...(history.length ? [] : legacy), ...(previous ? [previous] : [])]);
        superseded.delete(fileId);
        return { appended: r.events.length > 0, superseded: [...superseded] };
      } catch (err) {
        if (err instanceof WrongExpectedRevisionError && round < CLAIM_ROUNDS) continue;
        throw err;
      }
    }
  }

  /** Gives the id back to the file that held it before `fileId`'s claim (its add failed); nothing if another claim came since. */
  async release(
    organizationId: string,
    actor: string,
    storeId: string,
    externalId: string,
    fileId: string,
  ): Promise<void> {
    const release = {
      type: 'ReleaseStoreExternalId' as const,
      organizationId,
      storeId,
      externalId,
      fileId,
      now: this.writes.now(),
    };
    await this.writes.run(handleExternalId, release, { orgId: organizationId, actor }, { retries: 5 });
  }

  /**
   * Whether `fileId` lost the id after claiming it: null while it holds it; else how the claim that
   * took over from it was made (`overwrite`, or without: its claim was given up as abandoned).
   */
  async lostBy(storeId: string, externalId: string, fileId: string): Promise<'overwrite' | 'abandoned' | null> {
    const history = await this.writes.store.readStream(storeExternalIdStream(storeId, externalId));
    if (foldEvents(storeExternalIdDecider, history).holder === fileId) return null;
    const claims = history
      .filter((e) => e.type === 'StoreExternalIdClaimed')
      .map((e) => e.data as StoreExternalIdClaimed['data']);
    let own = claims.length - 1;
    while (own >= 0 && claims[own].fileId !== fileId) own--;
    const taker = claims.slice(own + 1).find((c) => c.previousFileId === fileId);
    return taker?.overwrite === false ? 'abandoned' : 'overwrite';
  }

  /** The holder as its own store-file stream shows it, relative to its claim. */
  private async statusOf(storeId: string, externalId: string, state: StoreExternalIdState): Promise<HolderStatus> {
    const events = await this.writes.store.readStream(storeFileStream(storeId, state.holder!));
    const file = foldEvents(storeFileDecider, events);
    if (file.present && file.added?.externalId === externalId) return 'present';
    // a claim from before claims recorded the file's revision was made by a file already added
    if (state.fileRevision === null) return 'gone';
    const addedSince = events.some((e) => e.type === 'StoreFileAdded' && e.revision > state.fileRevision!);
    return addedSince ? 'gone' : 'adding';
  }
}
