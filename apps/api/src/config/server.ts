import { resolve } from 'path';
import { OutboundPolicy, parseAllowList } from '@larder/outbound';
import { parseMasterKey } from '@larder/secrets';
import { DEFAULT_SHARED_BUFFERS_MB } from '@larder/database/embedded-postgres.memory';
import { DEFAULT_RETAIN_BYTES } from '@larder/message-bus/in-process/in-process.message-bus';
import { EnvReaders } from './env';

/** The process, its databases and bus, its keys, and billing. */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Read models, checkpoints and (without EVENTSTORE_URL) the event store; unset = embedded Postgres under dataDir. */
  databaseUrl: string | null;
  /** EventStoreDB connection string; unset = the Postgres event store. */
  eventStoreUrl: string | null;
  eventStoreSchema: string;
  /** NATS server with JetStream; unset = in-process bus. */
  natsUrl: string | null;
  natsStream: string;
  natsSubjectPrefix: string;
  /** Without NATS: the latest domain events the in-process bus keeps for a subscriber asking for all, MiB (LARDER_BUS_RETAIN_MB, default 4; 0: none). */
  busRetainMb: number;
  rootKey: string | null;
  /** Whether this process runs projections and reactors (false when a separate worker does). */
  runWorker: boolean;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  publicUrl: string | null;
  /** JSON object of decimal prices per metric (docs/api.md, Billing); unset = the defaults. */
  billingPrices: string | null;
  billingCredit: string;
  billingAnchorDay: number;
  /** The master key sealing stored credentials (base64 or hex, 32 bytes); unset = a keyring file generated into dataDir. */
  secretsKey: string | null;
  /** Older master keys that still open secrets until `secrets rotate` re-seals them. */
  secretsPreviousKeys: string | null;
  /** Addresses, CIDRs or host names (each with an optional :port) that tenant-supplied URLs may reach although special-purpose. */
  outboundAllow: string[];
  /** Whether the web console is served at /console (LARDER_CONSOLE, default true). */
  console: boolean;
  /** Whether Prometheus metrics are served at /metrics (LARDER_METRICS, default true). */
  metrics: boolean;
  /** The embedded database's shared buffers, MiB (LARDER_PG_SHARED_BUFFERS_MB, default 32). */
  pgSharedBuffersMb: number;
}

export function loadServerConfig(env: NodeJS.ProcessEnv, { int, bool }: EnvReaders): ServerConfig {
  const rootKey = env.LARDER_ROOT_KEY || null;
  if (rootKey !== null && rootKey.length < 24) throw new Error('LARDER_ROOT_KEY must be at least 24 characters long');
  // fail at start, not at the first bucket: a malformed master key or allow-list entry
  if (env.LARDER_SECRETS_KEY) parseMasterKey(env.LARDER_SECRETS_KEY);
  for (const k of (env.LARDER_SECRETS_PREVIOUS_KEYS ?? '').split(',').filter((x) => x.trim()))
    parseMasterKey(k, 'LARDER_SECRETS_PREVIOUS_KEYS');
  new OutboundPolicy(parseAllowList(env.LARDER_OUTBOUND_ALLOW ?? ''));
  return {
    port: int('PORT', 8000),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.LARDER_DATA_DIR || './data'),
    secretsKey: env.LARDER_SECRETS_KEY || null,
    secretsPreviousKeys: env.LARDER_SECRETS_PREVIOUS_KEYS || null,
    outboundAllow: parseAllowList(env.LARDER_OUTBOUND_ALLOW ?? ''),
    databaseUrl: env.DATABASE_URL || null,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    eventStoreSchema: env.LARDER_EVENTS_SCHEMA || 'larder_events',
    natsUrl: env.NATS_URL || null,
    natsStream: env.LARDER_NATS_STREAM || 'LARDER_EVENTS',
    natsSubjectPrefix: env.LARDER_NATS_SUBJECT_PREFIX || 'larder',
    busRetainMb: int('LARDER_BUS_RETAIN_MB', DEFAULT_RETAIN_BYTES / 2 ** 20),
    rootKey,
    runWorker: bool('LARDER_RUN_WORKER', true),
    console: bool('LARDER_CONSOLE', true),
    metrics: bool('LARDER_METRICS', true),
    pgSharedBuffersMb: Math.max(1, int('LARDER_PG_SHARED_BUFFERS_MB', DEFAULT_SHARED_BUFFERS_MB)),
    logLevel: (env.LARDER_LOG_LEVEL as ServerConfig['logLevel']) || 'log',
    publicUrl: env.LARDER_PUBLIC_URL || null,
    billingPrices: env.LARDER_BILLING_PRICES || null,
    billingCredit: env.LARDER_BILLING_CREDIT || '0',
    billingAnchorDay: Math.min(28, Math.max(1, int('LARDER_BILLING_PERIOD_START_DAY', 1))),
  };
}
