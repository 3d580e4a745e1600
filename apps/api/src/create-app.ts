import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { NestExpressApplication } from '@nestjs/platform-express';
import { withReadLagReporting } from '@larder/kernel';
import { AppModule } from './app.module';
import { bootstrapRootKey, RootKeyResult } from './bootstrap-root-key';
import { LarderConfig } from './config';
import { createInfrastructure, Infrastructure } from './infrastructure';
import { LarderValidationPipe } from './http/validation.pipe';
import { jsonBodyMiddleware } from './http/json-body.middleware';
import { buildOpenApi, serveOpenApi } from './http/openapi';
import { LARDER_VERSION } from './http/info.http.controller';

export interface LarderApp {
  app: INestApplication;
  infra: Infrastructure;
  rootKey: RootKeyResult;
  close(): Promise<void>;
}

export function logLevels(level: LarderConfig['logLevel']): LogLevel[] {
  const all: LogLevel[] = ['error', 'warn', 'log', 'debug'];
  return all.slice(0, all.indexOf(level) + 1);
}

/** Builds the whole HTTP server (not yet listening) from configuration. */
export async function createLarderApp(config: LarderConfig): Promise<LarderApp> {
  Logger.overrideLogger(logLevels(config.logLevel));
  const infra = await createInfrastructure(config, { role: 'server' });
  try {
    infra.runner.start();
    const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(infra), {
      logger: logLevels(config.logLevel),
      bodyParser: false,
    });
    app.use((_req: unknown, res: Parameters<typeof withReadLagReporting>[0], next: () => void) => withReadLagReporting(res, next));
    app.use(jsonBodyMiddleware(config.jsonLimit));
    app.useGlobalPipes(new LarderValidationPipe());
    app.getHttpAdapter().getInstance().disable('x-powered-by');
    serveOpenApi(app, buildOpenApi(app, LARDER_VERSION));
    await app.init();
    const rootKey = await bootstrapRootKey(app.get(CommandBus), config);
    let closed = false;
    return {
      app,
      infra,
      rootKey,
      async close() {
        if (closed) return;
        closed = true;
        await app.close();
        await infra.close();
      },
    };
  } catch (err) {
    await infra.close();
    throw err;
  }
}
