import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { FILES_CONFIG, FilesConfig } from '../files.config';
import { UploadWriter } from './upload.writer';

/** Aborts multipart uploads past their expiry and deletes their parts, once a minute. */
@Injectable()
export class UploadExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UploadExpiry');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly uploads: UploadWriter,
    @Inject(FILES_CONFIG) private readonly config: FilesConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.sweepExpiredUploads) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.uploads
        .sweepExpired()
        .then((n) => n && this.logger.log(`aborted ${n} expired upload(s)`))
        .catch((e: Error) => this.logger.warn(e.message))
        .finally(() => (this.running = null));
    }, 60_000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
