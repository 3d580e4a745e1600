import { join } from 'path';
import { DynamicModule, Global, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CLOCK, ID_GENERATOR, RandomIdGenerator, READ_MODEL_CONSISTENCY, SystemClock } from '@larder/kernel';
import { EVENT_STORE, Writes } from '@larder/event-store';
import { MESSAGE_BUS } from '@larder/message-bus';
import { ApiKeyAuthGuard, ApiKeysModule, ApiKeyUsageRecorder } from '@larder/api-keys';
import { OrganizationsModule } from '@larder/organizations';
import { FILES_CONFIG, FilesConfig, FilesModule } from '@larder/files';
import { BLOB_STORAGE, BUCKET_CONNECTOR, BUCKET_HEALTH } from '@larder/blob-storage';
import { BucketsModule } from '@larder/buckets';
import { CHUNK_INDEX } from '@larder/chunk-index';
import { EMBEDDER, LLM, OCR, TRANSCRIBER } from '@larder/ai';
import { STORES_CONFIG, StoresConfig, StoresModule } from '@larder/stores';
import {
  CHAT_CONFIG,
  ChatConfig,
  MODELS_CONFIG,
  ModelsConfig,
  RERANKER,
  SEARCH_CONFIG,
  SearchConfig,
  SearchModule,
  WEB_SEARCH,
} from '@larder/search';
import { ActivityModule } from '@larder/activity';
import { BILLING_CONFIG, BillingConfig, BillingModule, Money, priceTable } from '@larder/billing';
import { ProjectionRunner } from '@larder/projections/runner';
import { SECRET_VAULT } from '@larder/secrets';
import {
  TRACE_DELIVERIES,
  TRACE_DELIVERY_SIGNAL,
  TRACE_DESTINATION_CLIENT,
  TRACE_EXPORT_CONFIG,
  TraceDestinationClient,
  TraceDestinationsModule,
  TraceExportConfig,
} from '@larder/trace-destinations';
import { OrganizationsReader } from '@larder/projections/organizations/organizations.reader';
import { Infrastructure } from './infrastructure';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { InfoHttpController } from './http/info.http.controller';
import { HealthHttpController } from './http/health.http.controller';
import { LARDER_VERSION } from './http/info.http.controller';
import { LarderMetrics } from './metrics/larder-metrics';
import { METRICS, MetricsHttpController } from './metrics/metrics.http.controller';

export const INFRASTRUCTURE = Symbol('INFRASTRUCTURE');

/** Binds the adapters chosen by configuration to the ports every context injects. */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(infra: Infrastructure): DynamicModule {
    const providers = [
      { provide: INFRASTRUCTURE, useValue: infra },
      { provide: EVENT_STORE, useValue: infra.eventStore },
      { provide: MESSAGE_BUS, useValue: infra.bus },
      { provide: DataSource, useValue: infra.dataSource },
      { provide: ProjectionRunner, useValue: infra.runner },
      { provide: READ_MODEL_CONSISTENCY, useValue: infra.runner },
      { provide: BLOB_STORAGE, useValue: infra.blobs },
      { provide: BUCKET_CONNECTOR, useValue: infra.bucketConnector },
      { provide: BUCKET_HEALTH, useValue: infra.bucketStorages },
      {
        provide: FILES_CONFIG,
        useValue: {
          maxFileBytes: infra.config.maxFileBytes,
          uploadTtlMs: infra.config.uploadTtlMs,
          partUrlTtlSeconds: infra.config.partUrlTtlSeconds,
          signingSecret: infra.signingSecret,
          publicUrl: infra.config.publicUrl,
          sweepExpiredUploads: infra.config.runWorker,
        } satisfies FilesConfig,
      },
      { provide: CHUNK_INDEX, useValue: infra.chunkIndex },
      { provide: EMBEDDER, useValue: infra.embedder },
      // null with LARDER_OCR=false: inject with @Optional() @Inject(OCR) ocr: Ocr | null
      { provide: OCR, useValue: infra.ocr },
      // null without a speech recogniser: audio and video then fail as unsupported
      { provide: TRANSCRIBER, useValue: infra.transcriber },
      {
        provide: STORES_CONFIG,
        useValue: {
          runWorker: infra.config.runWorker,
          ingestionConcurrency: infra.config.ingestionConcurrency,
          leaseMs: infra.config.ingestionLeaseMs,
          attemptTimeoutMs: infra.config.ingestionAttemptTimeoutMs,
          maxAttempts: infra.config.ingestionMaxAttempts,
          retryBaseMs: infra.config.ingestionRetryBaseMs,
          pollMs: infra.config.ingestionPollMs,
          signingSecret: infra.signingSecret,
          publicUrl: infra.config.publicUrl,
          contentUrlTtlSeconds: infra.config.contentUrlTtlSeconds,
          expirySweepMs: infra.config.storeExpirySweepMs,
          ocrMaxPixels: infra.config.ocrMaxPixels,
          parseLimits: infra.config.parseLimits,
          media: infra.media,
        } satisfies StoresConfig,
      },
      {
        provide: SEARCH_CONFIG,
        useValue: {
          fusion: infra.config.searchFusion,
          lexicalWeight: infra.config.searchLexicalWeight,
          rerankLexicalWeight: infra.config.rerankLexicalWeight,
          candidateFactor: infra.config.searchCandidateFactor,
          maxSortScan: infra.config.listChunksMaxSortScan,
          webMaxResults: infra.config.webSearchMaxResults,
          admission: {
            concurrency: infra.config.searchConcurrency,
            queue: infra.config.searchQueue,
            queueWaitMs: infra.config.searchQueueWaitMs,
          },
          activityJournalDir:
            typeof infra.config.dataDir === 'string' ? join(infra.config.dataDir, 'activity-journal') : null,
        } satisfies SearchConfig,
      },
      { provide: RERANKER, useValue: infra.reranker },
      { provide: MODELS_CONFIG, useValue: { aliases: infra.config.modelAliases } satisfies ModelsConfig },
      {
        provide: CHAT_CONFIG,
        useValue: {
          signingSecret: infra.signingSecret,
          toolTicketTtlSeconds: infra.config.toolTicketTtlSeconds,
        } satisfies ChatConfig,
      },
      // null without LARDER_LLM_URL: inject with @Optional() @Inject(LLM) llm: Llm | null
      { provide: LLM, useValue: infra.llm },
      // null without a web search provider: inject with @Optional() @Inject(WEB_SEARCH) web: WebSearch | null
      { provide: WEB_SEARCH, useValue: infra.webSearch },
      {
        provide: BILLING_CONFIG,
        useValue: {
          prices: priceTable(infra.config.billingPrices),
          credit: Money.parse(infra.config.billingCredit),
          anchorDay: infra.config.billingAnchorDay,
        } satisfies BillingConfig,
      },
      // the sealed credentials of integrations (events carry only their references)
      { provide: SECRET_VAULT, useValue: infra.secretVault },
      {
        provide: TRACE_EXPORT_CONFIG,
        useValue: {
          runWorker: infra.config.runWorker,
          timeoutMs: infra.config.traceExport.timeoutMs,
          pollMs: infra.config.traceExport.pollMs,
          concurrency: infra.config.traceExport.concurrency,
          batchSize: infra.config.traceExport.batchSize,
          retry: {
            baseMs: infra.config.traceExport.retryBaseMs,
            maxMs: infra.config.traceExport.retryMaxMs,
            maxAttempts: infra.config.traceExport.maxAttempts,
          },
          serviceVersion: LARDER_VERSION,
        } satisfies TraceExportConfig,
      },
      { provide: TRACE_DELIVERIES, useValue: infra.traceDeliveries },
      { provide: TRACE_DELIVERY_SIGNAL, useValue: infra.traceDeliverySignal },
      // every connection to a destination goes through the outbound policy (LARDER_OUTBOUND_ALLOW)
      {
        provide: TRACE_DESTINATION_CLIENT,
        useValue: new TraceDestinationClient(infra.outbound, { timeoutMs: infra.config.traceExport.timeoutMs }),
      },
      { provide: CLOCK, useClass: SystemClock },
      { provide: ID_GENERATOR, useClass: RandomIdGenerator },
      OrganizationsReader,
      Writes,
    ];
    return { module: InfrastructureModule, providers, exports: providers.map((p) => ('provide' in p ? p.provide : p)) };
  }
}

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(private readonly usage: ApiKeyUsageRecorder) {}

  /** `metrics`: served at /metrics when given (and `http` is not false). */
  static forRoot(infra: Infrastructure, options: { http?: boolean; metrics?: LarderMetrics } = {}): DynamicModule {
    const http = options.http !== false;
    return {
      module: AppModule,
      imports: [
        InfrastructureModule.forRoot(infra),
        CqrsModule.forRoot(),
        OrganizationsModule,
        ApiKeysModule,
        FilesModule,
        StoresModule,
        SearchModule,
        ActivityModule,
        BillingModule,
        TraceDestinationsModule,
        BucketsModule,
      ],
      controllers: http
        ? [InfoHttpController, HealthHttpController, ...(options.metrics ? [MetricsHttpController] : [])]
        : [],
      providers: [
        ...(http && options.metrics ? [{ provide: METRICS, useValue: options.metrics }] : []),
        { provide: APP_GUARD, useExisting: ApiKeyAuthGuard },
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.usage.flush();
  }
}
