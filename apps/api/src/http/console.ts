import { INestApplication, Logger } from '@nestjs/common';
import express, { NextFunction, Request, Response } from 'express';
import { existsSync } from 'fs';
import { dirname, join } from 'path';
import { errorBody } from './http-exception.filter';

export const CONSOLE_PATH = '/console';

/** The repository (or image) root: the nearest folder above this file with a package.json, in source and in dist alike. */
function installRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

/** Where `npm run build` puts the console (Vite's output, apps/console/vite.config.mjs). */
export const consoleDir = (): string => join(installRoot(), 'dist', 'console');

export interface ConsoleOptions {
  /** Other origins the page may send requests to: where presigned part URLs point (S3, LARDER_PUBLIC_URL). */
  connectOrigins: string[];
}

/**
 * Serves the web console (apps/console, built by `npm run build`) at /console on the API's own port:
 * hashed assets cached for good, index.html for every other path under /console (the app routes in
 * the browser). No API key is needed for these files; the page asks for one and sends it only as
 * `Authorization`. The page may only run its own scripts and talk to this origin (plus `connectOrigins`).
 */
export function serveConsole(app: INestApplication, dir: string, options: ConsoleOptions): void {
  const index = join(dir, 'index.html');
  const connect = ["'self'", ...options.connectOrigins].join(' ');
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    // Recharts and React set style attributes
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  const secure = (res: Response) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
  };
  const router = express.Router();
  router.use(
    '/assets',
    express.static(join(dir, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => secure(res),
    }),
  );
  router.use('/assets', (_req: Request, res: Response) => {
    res
      .status(404)
      .json(errorBody(404, 'No such console asset (the page may be older than the server: reload it).', 'not_found'));
  });
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    secure(res);
    if (!existsSync(index)) {
      res
        .status(404)
        .json(errorBody(404, 'The console is not built: run `npm run build` (npm start does it).', 'not_found'));
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    // The page is small and always sent whole: a Range header (even an unsatisfiable one) is ignored.
    res.sendFile(index, { acceptRanges: false }, (err?: Error & { status?: number }) => {
      if (!err || res.headersSent) return;
      const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 503;
      res
        .status(status)
        .json(
          errorBody(
            status,
            status === 503 ? 'The console page could not be read; try again.' : err.message,
            status === 503 ? 'service_unavailable' : 'bad_request',
          ),
        );
    });
  });
  app.use(CONSOLE_PATH, router);
  if (!existsSync(index))
    new Logger('Console').warn(`${index} is missing: /console answers 404 until \`npm run build\` builds it`);
}

/** The origins presigned part URLs can point to, for the page's `connect-src`. */
export function uploadOrigins(config: {
  blobStorage: 'local' | 's3';
  s3: { endpoint: string | null; region: string };
  publicUrl: string | null;
}): string[] {
  const out: string[] = [];
  if (config.publicUrl && URL.canParse(config.publicUrl)) out.push(new URL(config.publicUrl).origin);
  if (config.blobStorage === 's3')
    out.push(
      config.s3.endpoint && URL.canParse(config.s3.endpoint)
        ? new URL(config.s3.endpoint).origin
        : 'https://*.amazonaws.com',
    );
  return out;
}
