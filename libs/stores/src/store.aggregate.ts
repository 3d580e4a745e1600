import { ConflictError, Decider, NotFoundError } from '@larder/kernel';
import { ExpiresAfterData, StoreConfigData, StoreEvent } from './events';

export interface StoreState {
  status: 'absent' | 'active' | 'expired' | 'deleted';
  organizationId: string | null;
  name: string | null;
  /** The customer bucket the store keeps its objects in (null: platform storage). */
  bucketId: string | null;
  /** Set while a copy runs (either side). */
  copying: { role: 'source' | 'target'; peerStoreId: string } | null;
  /** What the store's response shows, so a write can answer from its decided state when the read model is late. */
  view: StoreView | null;
}

export interface StoreView extends Omit<StoreFields, 'name'> {
  config: StoreConfigData;
  createdAt: string;
  updatedAt: string;
  copyState: {
    role: 'source' | 'target';
    status: 'in_progress' | 'failed';
    peer_store_id: string;
    started_at: string;
    error: string | null;
  } | null;
}

export interface StoreFields {
  name: string;
  /** Free text (OpenAI's vector store name), not unique; null or absent: none. */
  displayName?: string | null;
  description: string | null;
  isPublic: boolean;
  license: string | null;
  metadata: unknown;
  expiresAfter: ExpiresAfterData | null;
}

export type StoreCommand =
  | ({
      type: 'CreateStore';
      storeId: string;
      organizationId: string;
      config: StoreConfigData;
      bucketId?: string | null;
      now: Date;
    } & StoreFields)
  | ({ type: 'UpdateStore'; storeId: string; organizationId: string; now: Date } & Partial<StoreFields>)
  | { type: 'ExpireStore'; storeId: string; organizationId: string; now: Date }
  | { type: 'DeleteStore'; storeId: string; organizationId: string; now: Date }
  | {
      type: 'StartCopy';
      storeId: string;
      organizationId: string;
      role: 'source' | 'target';
      peerStoreId: string;
      now: Date;
    }
  | {
      type: 'FinishCopy';
      storeId: string;
      organizationId: string;
      role: 'source' | 'target';
      peerStoreId: string;
      error: string | null;
      now: Date;
    };

export const storeDecider: Decider<StoreState, StoreCommand, StoreEvent> = {
  initialState: () => ({
    status: 'absent',
    organizationId: null,
    name: null,
    bucketId: null,
    copying: null,
    view: null,
  }),
  evolve(s, e) {
    const view = s.view;
    switch (e.type) {
      case 'StoreCreated': {
        const d = e.data;
        return {
          ...s,
          status: 'active',
          organizationId: d.organizationId,
          name: d.name,
          bucketId: d.bucketId ?? null,
          view: {
            displayName: d.displayName ?? null,
            description: d.description,
            isPublic: d.isPublic,
            license: d.license,
            metadata: d.metadata,
            expiresAfter: d.expiresAfter,
            config: d.config,
            createdAt: d.at,
            updatedAt: d.at,
            copyState: null,
          },
        };
      }
      case 'StoreUpdated': {
        const { storeId: _id, name: _name, at, ...changed } = e.data;
        void _id;
        void _name;
        return {
          ...s,
          name: e.data.name ?? s.name,
          status: s.status === 'expired' ? 'active' : s.status,
          view: view && { ...view, ...changed, updatedAt: at },
        };
      }
      case 'StoreExpired':
        return { ...s, status: 'expired', view: view && { ...view, updatedAt: e.data.at } };
      case 'StoreDeleted':
        return { ...s, status: 'deleted' };
      case 'StoreCopyStarted': {
        const d = e.data;
        const copyState = {
          role: d.role,
          status: 'in_progress' as const,
          peer_store_id: d.peerStoreId,
          started_at: d.at,
          error: null,
        };
        return {
          ...s,
          copying: { role: d.role, peerStoreId: d.peerStoreId },
          view: view && { ...view, copyState, updatedAt: d.at },
        };
      }
      case 'StoreCopyFinished': {
        const d = e.data;
        const copyState =
          d.error && view?.copyState ? { ...view.copyState, status: 'failed' as const, error: d.error } : null;
        return { ...s, copying: null, view: view && { ...view, copyState, updatedAt: d.at } };
      }
    }
  },
  decide(c, s) {
    const at = c.now.toISOString();
    if (c.type === 'CreateStore') {
      if (s.status !== 'absent') throw new ConflictError(`store ${c.storeId} already exists`);
      return [
        {
          type: 'StoreCreated',
          data: {
            storeId: c.storeId,
            organizationId: c.organizationId,
            name: c.name,
            ...(c.displayName ? { displayName: c.displayName } : {}),
            description: c.description,
            isPublic: c.isPublic,
            license: c.license,
            metadata: c.metadata,
            config: c.config,
            expiresAfter: c.expiresAfter,
            ...(c.bucketId ? { bucketId: c.bucketId } : {}),
            at,
          },
        },
      ];
    }
    if (s.status === 'absent' || s.status === 'deleted' || s.organizationId !== c.organizationId)
      throw new NotFoundError(`Store ${c.storeId} not found`);
    switch (c.type) {
      case 'UpdateStore': {
        const data: Record<string, unknown> = { storeId: c.storeId, at };
        for (const k of [
          'name',
          'displayName',
          'description',
          'isPublic',
          'license',
          'metadata',
          'expiresAfter',
        ] as const)
          if (c[k] !== undefined) data[k] = c[k];
        return [{ type: 'StoreUpdated', data: data as StoreEvent['data'] & { storeId: string; at: string } }];
      }
      case 'ExpireStore':
        return s.status === 'expired' ? [] : [{ type: 'StoreExpired', data: { storeId: c.storeId, at } }];
      case 'DeleteStore':
        if (s.copying)
          throw new ConflictError(`Store ${c.storeId} is being copied; delete it when the copy has finished`);
        return [
          {
            type: 'StoreDeleted',
            data: {
              storeId: c.storeId,
              organizationId: c.organizationId,
              name: s.name!,
              ...(s.bucketId ? { bucketId: s.bucketId } : {}),
              at,
            },
          },
        ];
      case 'StartCopy':
        if (s.copying) throw new ConflictError(`Store ${c.storeId} is already being copied`);
        return [
          { type: 'StoreCopyStarted', data: { storeId: c.storeId, role: c.role, peerStoreId: c.peerStoreId, at } },
        ];
      case 'FinishCopy':
        if (!s.copying) return [];
        return [
          {
            type: 'StoreCopyFinished',
            data: { storeId: c.storeId, role: c.role, peerStoreId: c.peerStoreId, error: c.error, at },
          },
        ];
    }
  },
};

/** Store names: lowercase letters, digits, `.` and `-`, 1–128 characters. */
export const STORE_NAME = /^[a-z0-9.-]{1,128}$/;
