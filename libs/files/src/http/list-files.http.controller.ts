import { Controller, Get, Query } from '@nestjs/common';
import { CurrentPrincipal, CursorPage, paginateByCursor, Principal, RequireScope } from '@larder/kernel';
import { FilesReader } from '@larder/projections/files/files.reader';
import { FileEntity } from '@larder/projections/files/file.entity';
import { FileObjectResponse, toFileObject } from '../file.response';
import { ListFilesRequestDto } from './list-files.request.dto';

@Controller('v1/files')
export class ListFilesHttpController {
  constructor(private readonly reader: FilesReader) {}

  /**
   * Newest first. With `q`, best fuzzy matches first; the cursor then carries a rank, so paging both
   * ways stays consistent for the same `q`.
   */
  @Get()
  @RequireScope({ method: 'list', resourceType: 'file' })
  async list(@CurrentPrincipal() p: Principal, @Query() query: ListFilesRequestDto): Promise<CursorPage<FileObjectResponse>> {
    const org = p.organizationId;
    const q = query.q?.trim();
    let page: CursorPage<FileEntity & { rank?: number }>;
    if (q) {
      page = await paginateByCursor<FileEntity & { rank?: number }>(
        query,
        (f) => ({ r: f.rank! }),
        async ({ cursor, direction, take }) => {
          const at = cursor ? Number(cursor.r) : direction === 'forward' ? -1 : 0;
          const start = direction === 'forward' ? at + 1 : Math.max(0, at - take);
          const count = direction === 'forward' ? take : at - start;
          const rows = (await this.reader.search(org, q, start, count)).map((f, i) => Object.assign(f, { rank: start + i }));
          // backward: the `take` rows before the cursor, nearest first
          return direction === 'forward' ? rows : rows.reverse();
        },
        () => this.reader.count(org, q),
      );
    } else {
      page = await paginateByCursor<FileEntity>(
        query,
        (f) => ({ c: f.createdAt.toISOString(), id: f.id }),
        ({ cursor, direction, take }) => this.reader.page(org, cursor as { c: string; id: string } | null, direction, take),
        () => this.reader.count(org),
      );
    }
    return { ...page, data: page.data.map(toFileObject) };
  }
}
