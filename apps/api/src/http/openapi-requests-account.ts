/**
 * The hand-written request bodies of the organization's account: buckets (credentials are a union
 * discriminated by `type`) and trace destinations (a settings object per kind, write-only credentials).
 */

/** Buckets: `credentials` is a union discriminated by `type` (the DTO leaves it to the writer, which never echoes it). */
const bucketCredentials = {
  oneOf: [
    {
      type: 'object',
      required: ['role_arn'],
      properties: {
        type: { const: 'assume_role', default: 'assume_role' },
        role_arn: { type: 'string', minLength: 1, maxLength: 2048 },
      },
    },
    {
      type: 'object',
      required: ['access_key_id', 'secret_access_key'],
      properties: {
        type: { const: 'access_key', default: 'access_key' },
        access_key_id: { type: 'string', minLength: 1, maxLength: 128 },
        secret_access_key: { type: 'string', minLength: 1, maxLength: 1024, writeOnly: true },
      },
    },
  ],
};
/** Trace destinations (Larder's own API, docs/api.md "Trace destinations"): the settings object of each kind; credentials are write-only. */
const url = {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'http(s), without credentials, query or fragment',
};
const traceDestinationFields = (required: boolean) => ({
  name: { type: 'string', minLength: 1, maxLength: 256 },
  enabled: { type: 'boolean', default: true },
  trace_kinds: {
    type: 'array',
    minItems: 1,
    maxItems: 3,
    uniqueItems: true,
    items: { enum: ['agentic_search', 'question_answering', 'chat_completion'] },
    description: 'default: all',
  },
  langfuse: {
    type: 'object',
    description:
      'with kind langfuse: spans go to <host>/api/public/otel/v1/traces with basic auth public_key:secret_key (write-only; the keys rotate together)',
    ...(required ? { required: ['host', 'public_key', 'secret_key'] } : {}),
    properties: {
      host: url,
      public_key: { type: 'string', minLength: 1, maxLength: 1024 },
      secret_key: { type: 'string', minLength: 1, maxLength: 1024 },
    },
    additionalProperties: false,
  },
  otlp: {
    type: 'object',
    description:
      'with kind otlp: the OTLP/HTTP traces endpoint; header values are write-only (supplying headers replaces them all)',
    ...(required ? { required: ['endpoint'] } : {}),
    properties: {
      endpoint: url,
      protocol: { enum: ['http/protobuf', 'http/json'], default: 'http/protobuf' },
      headers: { type: 'object', maxProperties: 32, additionalProperties: { type: 'string', maxLength: 8192 } },
    },
    additionalProperties: false,
  },
});

/** The bodies that create and change buckets and trace destinations. */
export const ACCOUNT_REQUESTS: Record<string, unknown> = {
  BucketCreateParams: {
    type: 'object',
    required: ['name', 'bucket', 'credentials'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 255 },
      provider: { enum: ['aws_s3'], default: 'aws_s3' },
      bucket: { type: 'string', minLength: 1, maxLength: 255 },
      region: { type: ['string', 'null'], maxLength: 64 },
      endpoint_url: {
        type: ['string', 'null'],
        maxLength: 2048,
        description:
          'S3-compatible endpoint; omitted for AWS. Checked against the outbound policy (LARDER_OUTBOUND_ALLOW).',
      },
      prefix: { type: ['string', 'null'], maxLength: 1024, default: '' },
      sse_kms_key_id: { type: ['string', 'null'], maxLength: 2048 },
      credentials: bucketCredentials,
    },
  },
  BucketRotateCredentialsParams: {
    type: 'object',
    required: ['credentials'],
    properties: { credentials: bucketCredentials.oneOf[1] },
  },
  TraceDestinationCreateParams: {
    type: 'object',
    required: ['name', 'kind'],
    description: 'non-upstream (Larder): give the settings object named by kind',
    properties: { kind: { enum: ['langfuse', 'otlp'] }, ...traceDestinationFields(true) },
  },
  TraceDestinationUpdateParams: {
    type: 'object',
    description:
      'non-upstream (Larder): every field optional; supplied credentials rotate, omitted ones are kept; a new host or endpoint needs the credentials again',
    properties: {
      kind: { enum: ['langfuse', 'otlp'], description: 'only the current kind' },
      ...traceDestinationFields(false),
    },
  },
};
