import { Decider } from '@larder/kernel';
import { BucketExternalIdEvent } from './events';

export interface BucketExternalIdState {
  externalId: string | null;
}

/** `candidate` becomes the organization's external id unless it already has one (then nothing changes). */
export type AssignBucketExternalId = {
  type: 'AssignBucketExternalId';
  organizationId: string;
  candidate: string;
  now: Date;
};

/** One external id per organization, stable: claimed in its own stream, so concurrent first uses agree on one. */
export const bucketExternalIdDecider: Decider<BucketExternalIdState, AssignBucketExternalId, BucketExternalIdEvent> = {
  initialState: () => ({ externalId: null }),
  evolve: (_s, e) => ({ externalId: e.data.externalId }),
  decide: (c, s) =>
    s.externalId
      ? []
      : [
          {
            type: 'BucketExternalIdAssigned',
            data: { organizationId: c.organizationId, externalId: c.candidate, at: c.now.toISOString() },
          },
        ],
};
