import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CLOCK, Clock } from '@larder/kernel';
import { FileUploadsReader } from '@larder/projections/file-uploads/file-uploads.reader';
import { FILES_CONFIG, FilesConfig } from './files.config';
import { AbortUploadCommand } from './commands/abort-upload/abort-upload.command';

/** Aborts multipart uploads past their expiry and deletes their parts, once a minute. */
@Injectable()
export class UploadExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UploadExpiry');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly commands: CommandBus,
    private readonly reader: FileUploadsReader,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(FILES_CONFIG) private readonly config: FilesConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.sweepExpiredUploads) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweepExpired()
        .then((n) => n && this.logger.log(`aborted ${n} expired upload(s)`))
        .catch((e: Error) => this.logger.warn(e.message))
        .finally(() => (this.running = null));
    }, 60_000);
    this.timer.unref();
  }

  /** One pass: aborts the uploads past their expiry and deletes their parts; returns how many it found. */
  async sweepExpired(): Promise<number> {
    const expired = await this.reader.expired(this.clock.now());
    for (const u of expired) {
      await this.commands
        .execute(new AbortUploadCommand(null, 'expiry', u.id, 'expired'))
        .catch((e: Error) => this.logger.warn(`expiring ${u.id}: ${e.message}`));
    }
    return expired.length;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
