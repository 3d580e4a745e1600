import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { pipeline } from 'stream/promises';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { DownloadFileQuery } from './download-file.query';
import { FileDownload } from './download-file.handler';

/** Parses a single `bytes=` range; null = whole file; 'unsatisfiable' = 416. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // malformed or multi-range: serve the whole file
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

@Controller('v1/files')
export class DownloadFileHttpController {
  constructor(private readonly queries: QueryBus) {}

  /** Streams the content: ETag (SHA-256), If-None-Match → 304, one `bytes=` Range → 206 (If-Range honoured), else 200. */
  @Get(':file_id/content')
  @RequireScope({ method: 'read', resourceType: 'file', resourceIdParam: 'file_id' })
  async content(
    @CurrentPrincipal() p: Principal,
    @UuidParam('file_id') id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const f: FileDownload = await this.queries.execute(new DownloadFileQuery(p.organizationId, id));
    const size = f.bytes;
    const etag = `"${f.sha256}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Accept-Ranges', 'bytes');
    // raw bytes, as the contract's download answers them (the file's own type is its `mime_type`); never sniffed
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="${f.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(f.filename)}`,
    );
    res.setHeader('Last-Modified', f.updatedAt.toUTCString());
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    const range =
      req.headers['if-range'] && req.headers['if-range'] !== etag ? null : parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${size}`);
      res.status(416).json({
        error: { message: 'Range not satisfiable', code: 416, type: 'range_not_satisfiable' },
        message: 'Range not satisfiable',
      });
      return;
    }
    const body = await f.open(range ?? undefined);
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
      res.setHeader('Content-Length', String(range.end - range.start + 1));
    } else {
      res.status(200);
      res.setHeader('Content-Length', String(size));
    }
    await pipeline(body, res).catch(() => undefined); // a client that hangs up mid-download is not an error
  }
}
