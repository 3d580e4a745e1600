import { Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AdminOnly, CurrentPrincipal, ForbiddenError, Principal, Problems } from '@larder/kernel';
import { StoreFilesWriter } from '../store-files.writer';
import { IngestionWorker } from '../ingestion/ingestion.worker';

const STATUSES = ['pending', 'in_progress', 'cancelled', 'completed', 'failed'];

/** Admin re-ingestion (contract §10): administrators only; one job per selected store file. */
@Controller('v1/admin/stores')
export class AdminReingestHttpController {
  constructor(
    private readonly writer: StoreFilesWriter,
    private readonly worker: IngestionWorker,
  ) {}

  @Post(':organization_id/:store_identifier/reingest')
  @HttpCode(200)
  @AdminOnly()
  async reingest(@CurrentPrincipal() p: Principal, @Param('organization_id') org: string, @Param('store_identifier') sid: string, @Query() query: Record<string, unknown>) {
    const raw = query.statuses;
    const statuses = raw === undefined ? null : (Array.isArray(raw) ? raw : String(raw).split(',')).map(String);
    const problems = new Problems();
    if (statuses?.some((s) => !STATUSES.includes(s))) problems.push({ loc: ['query', 'statuses'], msg: `Input should be ${STATUSES.map((s) => `'${s}'`).join(', ')}`, type: 'enum', input: raw });
    if (query.billable !== undefined && !['true', 'false'].includes(String(query.billable))) problems.push({ loc: ['query', 'billable'], msg: 'Input should be a valid boolean', type: 'bool_parsing', input: query.billable });
    if (!/^[0-9a-f-]{36}$/i.test(org)) problems.push({ loc: ['path', 'organization_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: org });
    problems.throwIfAny();
    // the root organization's admin keys are the operator; any other admin key acts in its own organization only
    if (!p.operator && org.toLowerCase() !== p.organizationId) throw new ForbiddenError('An admin key acts only in its own organization; only the operator (a root admin key) acts on others.');
    const jobs = await this.writer.reingest(org.toLowerCase(), p.apiKeyId, sid, statuses, String(query.billable) === 'true');
    this.worker.nudge();
    return { message: `${jobs} store file${jobs === 1 ? '' : 's'} queued for re-ingestion`, jobs_created: jobs };
  }
}
