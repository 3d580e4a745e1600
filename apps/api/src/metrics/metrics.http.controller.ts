import { Controller, Get, Inject, Res } from '@nestjs/common';
import { Public } from '@larder/kernel';
import { LarderMetrics } from './larder-metrics';

export const METRICS = Symbol('METRICS');

/** Prometheus metrics in the text exposition format, public like `/health/*` (LARDER_METRICS=false turns the route off). */
@Controller('metrics')
export class MetricsHttpController {
  constructor(@Inject(METRICS) private readonly metrics: LarderMetrics) {}

  @Get()
  @Public()
  async scrape(@Res() res: { type(t: string): { send(body: string): void } }): Promise<void> {
    const body = await this.metrics.registry.metrics();
    res.type(this.metrics.registry.contentType).send(body);
  }
}
