import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, IsUUID } from 'class-validator';
import { QueryBoolean } from '@larder/kernel';

export const REINGEST_STATUSES = ['pending', 'in_progress', 'cancelled', 'completed', 'failed'] as const;

/** `POST /v1/admin/stores/{organization_id}/{store_identifier}/reingest` path parameters. */
export class ReingestStorePathDto {
  @IsUUID('all', { message: 'Input should be a valid UUID' }) organization_id!: string;
  @IsString() store_identifier!: string;
}

/** Its query: `statuses` (repeated or comma-separated; default all) and `billable` (default false). */
export class ReingestStoreQueryDto {
  @IsOptional()
  @Transform(({ value }) =>
    value === undefined ? undefined : (Array.isArray(value) ? value : String(value).split(',')).map(String),
  )
  @IsIn(REINGEST_STATUSES, {
    each: true,
    message: `Input should be ${REINGEST_STATUSES.map((s) => `'${s}'`).join(', ')}`,
  })
  statuses?: string[];

  @QueryBoolean() billable?: boolean;
}
