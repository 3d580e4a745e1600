import { EnvReaders } from './env';

/** Where blobs, customer buckets and chunks are kept. */
export interface StorageConfig {
  /** `local` (files under dataDir/blobs) or `s3`. */
  blobStorage: 'local' | 's3';
  s3: {
    bucket: string;
    endpoint: string | null;
    region: string;
    accessKeyId: string | null;
    secretAccessKey: string | null;
    prefix: string;
  };
  /** HMAC key for part URLs; unset = generated into dataDir/signing-key. */
  signingSecret: string | null;
  /** How Larder assumes customers' roles (assume_role buckets): an STS-compatible endpoint (null: AWS's regional STS), its region, and Larder's own identity (null: the AWS SDK's default credential chain). */
  sts: {
    endpoint: string | null;
    region: string;
    accessKeyId: string | null;
    secretAccessKey: string | null;
    sessionToken: string | null;
  };
  /** Deadline of one request to a customer bucket (the connection itself: at most 5 s). */
  bucketRequestTimeoutMs: number;
  /** `embedded` (SQLite file under dataDir) or `elasticsearch` (ELASTICSEARCH_URL). */
  chunkIndex: 'embedded' | 'elasticsearch';
  elasticsearchUrl: string | null;
  elasticsearchIndexPrefix: string;
}

export function loadStorageConfig(env: NodeJS.ProcessEnv, { int }: EnvReaders): StorageConfig {
  const stsEndpoint = env.LARDER_STS_ENDPOINT || null;
  if (stsEndpoint && (!URL.canParse(stsEndpoint) || !/^https?:$/.test(new URL(stsEndpoint).protocol)))
    throw new Error('LARDER_STS_ENDPOINT must be an http(s) URL such as https://sts.eu-west-1.amazonaws.com');
  if (!!env.LARDER_STS_ACCESS_KEY_ID !== !!env.LARDER_STS_SECRET_ACCESS_KEY)
    throw new Error('LARDER_STS_ACCESS_KEY_ID and LARDER_STS_SECRET_ACCESS_KEY go together');
  return {
    sts: {
      endpoint: stsEndpoint,
      region: env.LARDER_STS_REGION || 'us-east-1',
      accessKeyId: env.LARDER_STS_ACCESS_KEY_ID || null,
      secretAccessKey: env.LARDER_STS_SECRET_ACCESS_KEY || null,
      sessionToken: env.LARDER_STS_SESSION_TOKEN || null,
    },
    bucketRequestTimeoutMs: int('LARDER_BUCKET_REQUEST_TIMEOUT_MS', 30000),
    blobStorage: env.LARDER_BLOB_STORAGE === 's3' ? 's3' : 'local',
    s3: {
      bucket: env.LARDER_S3_BUCKET || 'larder',
      endpoint: env.LARDER_S3_ENDPOINT || null,
      region: env.LARDER_S3_REGION || 'us-east-1',
      accessKeyId: env.LARDER_S3_ACCESS_KEY_ID || null,
      secretAccessKey: env.LARDER_S3_SECRET_ACCESS_KEY || null,
      prefix: env.LARDER_S3_PREFIX || '',
    },
    signingSecret: env.LARDER_SIGNING_SECRET || null,
    chunkIndex: env.ELASTICSEARCH_URL ? 'elasticsearch' : 'embedded',
    elasticsearchUrl: env.ELASTICSEARCH_URL || null,
    elasticsearchIndexPrefix: env.LARDER_ES_INDEX_PREFIX || 'larder-',
  };
}
