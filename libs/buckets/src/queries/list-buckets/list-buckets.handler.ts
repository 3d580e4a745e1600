import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage, paginateByCursor } from '@larder/kernel';
import { BucketRow, BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { BucketResponse, toBucketResponse } from '../../bucket.response';
import { ListBucketsQuery } from './list-buckets.query';

/** Newest first. */
@QueryHandler(ListBucketsQuery)
export class ListBucketsHandler implements IQueryHandler<ListBucketsQuery, CursorPage<BucketResponse>> {
  constructor(private readonly reader: BucketsReader) {}

  async execute({ organizationId: org, paging }: ListBucketsQuery): Promise<CursorPage<BucketResponse>> {
    const page = await paginateByCursor<BucketRow>(
      paging,
      (b) => ({ c: b.createdAt.toISOString(), id: b.id }),
      ({ cursor, direction, take }) =>
        this.reader.page(org, cursor as { c: string; id: string } | null, direction, take),
      () => this.reader.count(org),
    );
    return { ...page, data: page.data.map(toBucketResponse) };
  }
}
