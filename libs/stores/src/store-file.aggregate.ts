import { ConflictError, Decider, NotFoundError } from '@larder/kernel';
import {
  ChunkingData,
  ParsingStrategy,
  StoreConfigData,
  StoreFileAdded,
  StoreFileContentData,
  StoreFileEvent,
  StoreFileIngested,
} from './events';

export type StoreFileStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface StoreFileState {
  present: boolean;
  organizationId: string | null;
  generation: number;
  status: StoreFileStatus | null;
  attempt: number;
  leaseExpiresAt: Date | null;
  workerId: string | null;
  parsed: { chunksKey: string; chunkCount: number; usageTokens: number } | null;
  /** What the file was added with, and its metadata now: a write answers from these when the read model is late. */
  added: StoreFileAdded['data'] | null;
  metadata: unknown;
}

export type StoreFileCommand =
  | ({
      type: 'AddStoreFile';
      storeId: string;
      organizationId: string;
      fileId: string;
      metadata: unknown;
      externalId: string | null;
      parsingStrategy: ParsingStrategy;
      chunking?: ChunkingData | null;
      contextualization: StoreConfigData['contextualization'];
      copiedFrom?: StoreFileAdded['data']['copiedFrom'];
      /** Only when the store keeps its objects in a bucket. */
      bucketId?: string;
      /** A file in the store is replaced (other content or options): its removal and the add are one append. */
      replace?: boolean;
      now: Date;
    } & StoreFileContentData)
  | {
      type: 'UpdateStoreFileMetadata';
      storeId: string;
      organizationId: string;
      fileId: string;
      metadata: unknown;
      now: Date;
    }
  | {
      type: 'StartIngestion';
      storeId: string;
      organizationId: string;
      fileId: string;
      generation: number;
      workerId: string;
      leaseMs: number;
      now: Date;
    }
  | {
      type: 'RenewIngestionLease';
      storeId: string;
      organizationId: string;
      fileId: string;
      generation: number;
      workerId: string;
      leaseMs: number;
      now: Date;
    }
  | {
      type: 'RecordParsed';
      storeId: string;
      organizationId: string;
      fileId: string;
      generation: number;
      workerId: string;
      chunksKey: string;
      chunkCount: number;
      usageTokens: number;
      parseMs: number;
      now: Date;
    }
  | ({ type: 'RecordIngested'; organizationId: string; workerId: string; now: Date } & Omit<
      StoreFileIngested['data'],
      'at'
    >)
  | {
      type: 'RecordIngestionFailed';
      storeId: string;
      organizationId: string;
      fileId: string;
      generation: number;
      workerId: string;
      error: { message: string; code: string };
      retryAt: Date | null;
      now: Date;
    }
  | {
      type: 'ReingestStoreFile';
      storeId: string;
      organizationId: string;
      fileId: string;
      filename: string;
      externalId: string | null;
      metadata: unknown;
      billable: boolean;
      now: Date;
    }
  | { type: 'CancelStoreFileIngestion'; storeId: string; organizationId: string; fileId: string; now: Date }
  | {
      type: 'RemoveStoreFile';
      storeId: string;
      organizationId: string;
      fileId: string;
      reason: 'deleted' | 'file_deleted' | 'store_deleted' | 'overwritten';
      now: Date;
    };

/** The ingestion worker lost its lease or the file was removed or re-added meanwhile. */
export class IngestionSupersededError extends ConflictError {}

type RemovalReason = Extract<StoreFileCommand, { type: 'RemoveStoreFile' }>['reason'];

function removed(
  storeId: string,
  fileId: string,
  organizationId: string,
  reason: RemovalReason,
  s: StoreFileState,
  at: string,
): StoreFileEvent {
  return {
    type: 'StoreFileRemoved',
    data: {
      storeId,
      fileId,
      organizationId,
      reason,
      ...(s.added?.bucketId ? { bucketId: s.added.bucketId, generation: s.generation } : {}),
      at,
    },
  };
}

export const storeFileDecider: Decider<StoreFileState, StoreFileCommand, StoreFileEvent> = {
  initialState: () => ({
    present: false,
    organizationId: null,
    generation: 0,
    status: null,
    attempt: 0,
    leaseExpiresAt: null,
    workerId: null,
    parsed: null,
    added: null,
    metadata: null,
  }),
  evolve(s, e) {
    switch (e.type) {
      case 'StoreFileAdded':
        return {
          present: true,
          organizationId: e.data.organizationId,
          generation: e.data.generation,
          status: e.data.copiedFrom ? 'completed' : 'pending',
          attempt: 0,
          leaseExpiresAt: null,
          workerId: null,
          parsed: null,
          added: e.data,
          metadata: e.data.metadata,
        };
      case 'StoreFileMetadataUpdated':
        return { ...s, metadata: e.data.metadata };
      case 'StoreFileReingestionRequested':
        return {
          ...s,
          metadata: e.data.metadata,
          added: s.added && { ...s.added, externalId: e.data.externalId },
          generation: e.data.generation,
          status: 'pending',
          attempt: 0,
          leaseExpiresAt: null,
          workerId: null,
          parsed: null,
        };
      case 'StoreFileIngestionStarted':
        return {
          ...s,
          status: 'in_progress',
          attempt: e.data.attempt,
          leaseExpiresAt: new Date(e.data.leaseExpiresAt),
          workerId: e.data.workerId,
        };
      case 'StoreFileIngestionLeaseRenewed':
        return { ...s, leaseExpiresAt: new Date(e.data.leaseExpiresAt) };
      case 'StoreFileParsed':
        return {
          ...s,
          parsed: { chunksKey: e.data.chunksKey, chunkCount: e.data.chunkCount, usageTokens: e.data.usageTokens },
        };
      case 'StoreFileIngested':
        return { ...s, status: 'completed', leaseExpiresAt: null, workerId: null };
      case 'StoreFileIngestionFailed':
        return { ...s, status: e.data.retryAt ? 'pending' : 'failed', leaseExpiresAt: null, workerId: null };
      case 'StoreFileIngestionCancelled':
        return { ...s, status: 'cancelled', leaseExpiresAt: null, workerId: null };
      case 'StoreFileRemoved':
        return { ...s, present: false, status: null, leaseExpiresAt: null, workerId: null };
    }
  },
  decide(c, s) {
    const at = c.now.toISOString();
    if (c.type === 'AddStoreFile') {
      if (s.present && !c.replace) throw new ConflictError(`File ${c.fileId} is already in store ${c.storeId}`);
      const { type: _t, now: _n, replace: _r, ...rest } = c;
      void _t;
      void _n;
      void _r;
      const { chunking, ...fields } = rest;
      // `chunking` is written only when set, so events of files added without one stay as they were
      const added: StoreFileEvent = {
        type: 'StoreFileAdded',
        data: {
          ...fields,
          ...(chunking ? { chunking } : {}),
          copiedFrom: c.copiedFrom ?? null,
          generation: s.generation + 1,
          at,
        },
      };
      return s.present ? [removed(c.storeId, c.fileId, c.organizationId, 'overwritten', s, at), added] : [added];
    }
    if (!s.present || s.organizationId !== c.organizationId)
      throw new NotFoundError(`File ${c.fileId} not found in store ${c.storeId}`);
    switch (c.type) {
      case 'UpdateStoreFileMetadata':
        return [
          {
            type: 'StoreFileMetadataUpdated',
            data: { storeId: c.storeId, fileId: c.fileId, metadata: c.metadata, at },
          },
        ];
      case 'CancelStoreFileIngestion':
        // only a file still waiting or in ingestion can be cancelled; a finished one stays as it is
        if (s.status !== 'pending' && s.status !== 'in_progress') return [];
        return [
          {
            type: 'StoreFileIngestionCancelled',
            data: {
              storeId: c.storeId,
              fileId: c.fileId,
              organizationId: c.organizationId,
              generation: s.generation,
              at,
            },
          },
        ];
      case 'RemoveStoreFile':
        return [removed(c.storeId, c.fileId, c.organizationId, c.reason, s, at)];
      case 'ReingestStoreFile':
        return [
          {
            type: 'StoreFileReingestionRequested',
            data: {
              storeId: c.storeId,
              fileId: c.fileId,
              organizationId: c.organizationId,
              generation: s.generation + 1,
              filename: c.filename,
              externalId: c.externalId,
              metadata: c.metadata,
              billable: c.billable,
              at,
            },
          },
        ];
      case 'StartIngestion': {
        const leased = s.status === 'in_progress' && s.leaseExpiresAt !== null && s.leaseExpiresAt > c.now;
        if (c.generation !== s.generation || leased || (s.status !== 'pending' && s.status !== 'in_progress')) {
          throw new IngestionSupersededError(`store file ${c.fileId} is not waiting for ingestion`);
        }
        const leaseExpiresAt = new Date(c.now.getTime() + c.leaseMs).toISOString();
        return [
          {
            type: 'StoreFileIngestionStarted',
            data: {
              storeId: c.storeId,
              fileId: c.fileId,
              generation: c.generation,
              attempt: s.attempt + 1,
              workerId: c.workerId,
              leaseExpiresAt,
              at,
            },
          },
        ];
      }
      default: {
        // Results are accepted only from the worker that holds the lease on this generation.
        if (c.generation !== s.generation || s.status !== 'in_progress' || s.workerId !== c.workerId) {
          throw new IngestionSupersededError(`store file ${c.fileId}: ingestion by ${c.workerId} was superseded`);
        }
        if (c.type === 'RenewIngestionLease') {
          const leaseExpiresAt = new Date(c.now.getTime() + c.leaseMs).toISOString();
          return [
            {
              type: 'StoreFileIngestionLeaseRenewed',
              data: {
                storeId: c.storeId,
                fileId: c.fileId,
                generation: c.generation,
                workerId: c.workerId,
                leaseExpiresAt,
                at,
              },
            },
          ];
        }
        if (c.type === 'RecordParsed') {
          return [
            {
              type: 'StoreFileParsed',
              data: {
                storeId: c.storeId,
                fileId: c.fileId,
                generation: c.generation,
                chunksKey: c.chunksKey,
                chunkCount: c.chunkCount,
                usageTokens: c.usageTokens,
                parseMs: c.parseMs,
                at,
              },
            },
          ];
        }
        if (c.type === 'RecordIngested') {
          const { type: _t, now: _n, organizationId: _o, workerId: _w, ...data } = c;
          void _t;
          void _n;
          void _o;
          void _w;
          return [{ type: 'StoreFileIngested', data: { ...data, at } }];
        }
        return [
          {
            type: 'StoreFileIngestionFailed',
            data: {
              storeId: c.storeId,
              fileId: c.fileId,
              generation: c.generation,
              attempt: s.attempt,
              error: c.error,
              retryAt: c.retryAt ? c.retryAt.toISOString() : null,
              at,
            },
          },
        ];
      }
    }
  },
};
