import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { STORES_CONFIG, StoresConfig } from '../stores.config';
import { StoresWriter } from '../stores.writer';

/** Moves stores whose `expires_after` inactivity window has passed to `expired`. */
@Injectable()
export class StoreExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('StoreExpiry');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @Inject(STORES_CONFIG) private readonly config: StoresConfig,
    private readonly writer: StoresWriter,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runWorker) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.writer
        .expireDue()
        .catch((err: Error) => this.logger.warn(`expiry sweep failed: ${err.message}`))
        .finally(() => (this.running = null));
    }, this.config.expirySweepMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
