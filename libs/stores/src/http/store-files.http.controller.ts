import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  CLOCK,
  Clock,
  CurrentPrincipal,
  CursorPage,
  FILE_UPLOADER,
  FileUploader,
  filterTargets,
  NotFoundError,
  paginateByCursor,
  parseFilters,
  Principal,
  Public,
  RequireScope,
  ValidationFailedError,
  baseUrlOf,
  readMultipart,
} from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage } from '@larder/blob-storage';
import { CHUNK_INDEX, ChunkIndex } from '@larder/chunk-index';
import { StoreFileListQuery, StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { StoreFilesWriter } from '../store-files.writer';
import { StoreFileResponse, toStoreFileResponse } from '../store.response';
import { ContentUrlSigner } from '../content-url.signer';
import { STORES_CONFIG, StoresConfig } from '../stores.config';
import { IngestionWorker } from '../ingestion/ingestion.worker';
import { AddStoreFileRequestDto, GetStoreFileQueryDto, ListStoreFilesQueryDto, ListStoreFilesRequestDto, StoreFileConfigDto, UpdateStoreFileRequestDto } from './store-files.request.dto';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';

@Controller('v1/stores/:store_identifier/files')
export class StoreFilesHttpController {
  private readonly signer: ContentUrlSigner;

  constructor(
    private readonly writer: StoreFilesWriter,
    private readonly reader: StoreFilesReader,
    private readonly worker: IngestionWorker,
    @Inject(CHUNK_INDEX) private readonly index: ChunkIndex,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
    @Inject(FILE_UPLOADER) private readonly uploader: FileUploader,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(STORES_CONFIG) private readonly config: StoresConfig,
  ) {
    this.signer = new ContentUrlSigner(config.signingSecret);
  }

  private contentUrl(req: Request, f: StoreFileRow): string {
    const base = this.config.publicUrl ?? baseUrlOf(req);
    const expires = Math.floor(this.clock.now().getTime() / 1000) + this.config.contentUrlTtlSeconds;
    return this.signer.url(base, f.storeId, f.fileId, expires);
  }

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async add(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Body() body: AddStoreFileRequestDto, @Req() req: Request): Promise<StoreFileResponse> {
    const f = await this.writer.add(p.organizationId, p.apiKeyId, sid, body);
    this.worker.nudge();
    return toStoreFileResponse(f, this.contentUrl(req, f));
  }

  /**
   * Multipart: a `file` part plus `params` (a JSON string of the JSON create body without `file_id`);
   * separate `metadata` and `config` parts (JSON strings) are accepted too and win over `params`.
   */
  @Post('upload')
  @HttpCode(201)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async upload(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Req() req: Request): Promise<StoreFileResponse> {
    await this.writer.resolveStore(p.organizationId, sid); // 404 before reading the body
    const { result: file, fields } = await readMultipart(req, (f) => this.uploader.upload(p.organizationId, p.apiKeyId, f.filename, f.mimeType, f.stream));
    let params: Record<string, unknown> = {};
    const parseJson = (name: string, text: string) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ValidationFailedError([{ loc: ['body', name], msg: `${name} must be a JSON string`, type: 'json_invalid', input: text }]);
      }
    };
    try {
      if (fields.params) {
        const v = parseJson('params', fields.params);
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ValidationFailedError([{ loc: ['body', 'params'], msg: 'params must be a JSON object', type: 'dict_type' }]);
        params = v as Record<string, unknown>;
      }
      if (fields.metadata !== undefined) params.metadata = parseJson('metadata', fields.metadata);
      if (fields.config !== undefined) params.config = parseJson('config', fields.config);
      if (fields.external_id !== undefined) params.external_id = fields.external_id;
      const dto = plainToInstance(AddStoreFileRequestDto, { ...params, file_id: file.id });
      const errors = await validate(dto, { whitelist: true });
      if (errors.length) {
        throw new ValidationFailedError(errors.map((e) => ({ loc: ['body', 'params', e.property], msg: Object.values(e.constraints ?? { invalid: 'invalid value' })[0], type: 'value_error' })));
      }
      if (dto.config) dto.config = plainToInstance(StoreFileConfigDto, dto.config);
      const f = await this.writer.add(p.organizationId, p.apiKeyId, sid, dto);
      this.worker.nudge();
      return toStoreFileResponse(f, this.contentUrl(req, f));
    } catch (err) {
      // `add` throws only before it appends (a refusal or a bad param): the file was never attached, so the upload is undone
      await this.uploader.remove(p.organizationId, p.apiKeyId, file.id).catch(() => undefined);
      throw err;
    }
  }

  private async listPage(p: Principal, sid: string, req: Request, paging: { limit?: number; after?: string | null; before?: string | null; include_total?: boolean }, query: StoreFileListQuery): Promise<CursorPage<StoreFileResponse>> {
    const s = await this.writer.resolveStore(p.organizationId, sid);
    const page = await paginateByCursor<StoreFileRow>(
      paging,
      (f) => ({ c: f.createdAt.toISOString(), id: f.fileId }),
      ({ cursor, direction, take }) => this.reader.page(s.id, query, cursor as { c: string; id: string } | null, direction, take),
      () => this.reader.count(s.id, query),
    );
    return { ...page, data: page.data.map((f) => toStoreFileResponse(f, this.contentUrl(req, f))) };
  }

  @Post('list')
  @HttpCode(200)
  @RequireScope({ method: 'list', resourceType: 'store', resourceIdParam: 'store_identifier' })
  list(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Body() body: ListStoreFilesRequestDto, @Req() req: Request) {
    const filter = parseFilters(body.metadata_filter, ['body', 'metadata_filter']);
    if (filterTargets(filter).has('chunk')) {
      throw new ValidationFailedError([{ loc: ['body', 'metadata_filter'], msg: 'generated_metadata keys address chunks; the file list filters on file metadata only', type: 'value_error' }]);
    }
    return this.listPage(p, sid, req, body, { statuses: body.statuses, filter, q: body.q?.trim() || null });
  }

  /** Deprecated listing (query string). */
  @Get()
  @RequireScope({ method: 'list', resourceType: 'store', resourceIdParam: 'store_identifier' })
  listDeprecated(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Query() query: ListStoreFilesQueryDto, @Req() req: Request) {
    return this.listPage(p, sid, req, query, { statuses: query.statuses ?? null });
  }

  @Get(':file_identifier/content')
  @Public()
  async content(
    @Param('store_identifier') sid: string,
    @Param('file_identifier') fid: string,
    @Query('expires') expires: string | undefined,
    @Query('signature') signature: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    if (!this.signer.verify(sid, fid, expires, signature, this.clock.now().getTime())) throw new NotFoundError('This content URL is invalid or has expired');
    const f = await this.reader.get(await this.orgOfStoreFile(sid, fid), sid, fid);
    if (!f) throw new NotFoundError('This file is no longer in the store');
    const body = await this.blobs.get(f.blobKey);
    res.status(200);
    res.setHeader('content-type', f.mimeType);
    res.setHeader('content-length', String(f.bytes));
    res.setHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(f.filename)}`);
    body.pipe(res);
  }

  private async orgOfStoreFile(storeId: string, fileId: string): Promise<string> {
    const rows = await this.reader.organizationOf(storeId, fileId);
    if (!rows) throw new NotFoundError('This file is no longer in the store');
    return rows;
  }

  @Get(':file_identifier')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async get(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Param('file_identifier') fid: string, @Query() query: GetStoreFileQueryDto, @Req() req: Request): Promise<StoreFileResponse> {
    const f = await this.writer.get(p.organizationId, sid, fid);
    const rc = query.return_chunks;
    let indices: number[] | null | undefined;
    const list = rc === undefined ? [] : Array.isArray(rc) ? rc : [rc];
    if (list.length === 1 && ['true', 'false'].includes(list[0])) indices = list[0] === 'true' ? null : undefined;
    else if (list.length) {
      indices = list.flatMap((x) => x.split(',')).map((x) => Number(x));
      if (indices.some((n) => !Number.isInteger(n) || n < 0)) {
        throw new ValidationFailedError([{ loc: ['query', 'return_chunks'], msg: 'return_chunks must be a boolean or a list of chunk indices', type: 'value_error', input: rc }]);
      }
    }
    // the `stores` position is taken after the row was read, so the chunks are at least as new as it
    if (indices !== undefined) await this.writer.chunkIndexCaughtUp();
    const chunks = indices === undefined ? undefined : await this.index.getChunks(f.storeId, f.fileId, indices);
    return toStoreFileResponse(f, this.contentUrl(req, f), chunks);
  }

  @Patch(':file_identifier')
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async update(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Param('file_identifier') fid: string, @Body() body: UpdateStoreFileRequestDto, @Req() req: Request): Promise<StoreFileResponse> {
    const f = await this.writer.updateMetadata(p.organizationId, p.apiKeyId, sid, fid, body.metadata);
    return toStoreFileResponse(f, this.contentUrl(req, f));
  }

  @Delete(':file_identifier')
  @RequireScope({ method: 'delete', resourceType: 'store', resourceIdParam: 'store_identifier' })
  remove(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Param('file_identifier') fid: string) {
    return this.writer.remove(p.organizationId, p.apiKeyId, sid, fid);
  }
}
