import { Injectable } from '@nestjs/common';
import { Clock, NotFoundError, ProjectionName, isUuid } from '@larder/kernel';
import { commandHandler, CommandWriter, Writes } from '@larder/event-store';
import { UploadCommand, uploadDecider, UploadState } from './multipart-upload.aggregate';
import { fileUploadStream } from './streams';

export const UPLOAD_PROJECTIONS: readonly ProjectionName[] = ['file-uploads'];

/** One decider bound to its stream: every write to a multipart upload goes through it. */
export const handleUpload = commandHandler(uploadDecider, (c: UploadCommand) => fileUploadStream(c.uploadId));

/**
 * The write side of a multipart upload. Writes read the upload from its own stream, so a late read
 * model never refuses a part or a completion of an upload that exists; `write.run` only appends, and
 * the wait for the read model (`write.settle`) comes after, marking the response when it is late.
 */
@Injectable()
export class UploadWriter {
  readonly write: CommandWriter<UploadState, UploadCommand>;

  constructor(private readonly writes: Writes) {
    this.write = writes.writer(handleUpload, UPLOAD_PROJECTIONS);
  }

  get clock(): Clock {
    return this.writes.clock;
  }

  /** The upload's state from its stream; 404 when it does not exist in the organization (null: any). */
  async mustExist(organizationId: string | null, uploadId: string): Promise<UploadState> {
    const state = isUuid(uploadId)
      ? await this.writes.fold(uploadDecider, fileUploadStream(uploadId))
      : uploadDecider.initialState();
    if (state.status === 'absent' || (organizationId !== null && state.organizationId !== organizationId))
      throw new NotFoundError(`Upload ${uploadId} not found`);
    return state;
  }
}
