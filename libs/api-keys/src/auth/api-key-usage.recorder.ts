import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyWriter } from '../api-key.writer';

/**
 * Maintains `last_active_at` by appending `ApiKeyUsed` at most once per interval per key. It runs off
 * the request path; `flush()` waits for what is in flight (called on shutdown). It remembers only the
 * keys it recorded within the interval (oldest first, forgotten as they age out).
 */
@Injectable()
export class ApiKeyUsageRecorder {
  private readonly logger = new Logger('ApiKeyUsage');
  /** Key id → when its use was last recorded, in the order recorded. */
  private readonly lastRecorded = new Map<string, number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  intervalMs = Number(process.env.LARDER_KEY_ACTIVITY_INTERVAL_MS ?? 60_000);

  constructor(private readonly writer: ApiKeyWriter) {}

  touch(key: { id: string; organizationId: string; lastActiveAt: Date | null }): void {
    const now = this.writer.clock.now().getTime();
    const last = Math.max(this.lastRecorded.get(key.id) ?? 0, key.lastActiveAt?.getTime() ?? 0);
    if (now - last < this.intervalMs) return;
    for (const [id, at] of this.lastRecorded) {
      if (now - at < this.intervalMs) break;
      this.lastRecorded.delete(id);
    }
    this.lastRecorded.delete(key.id);
    this.lastRecorded.set(key.id, now);
    const p = this.writer
      .decide(
        {
          type: 'RecordApiKeyUse',
          apiKeyId: key.id,
          organizationId: key.organizationId,
          minIntervalMs: this.intervalMs,
        },
        key.id,
      )
      .catch((err: Error) => this.logger.warn(`could not record use of key ${key.id}: ${err.message}`))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** How many keys it remembers (those recorded within the interval). */
  get remembered(): number {
    return this.lastRecorded.size;
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
