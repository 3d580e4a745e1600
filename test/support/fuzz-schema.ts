import fc from 'fast-check';

/** The part of JSON Schema (OpenAPI 3.1) the service's document uses. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  prefixItems?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  default?: unknown;
  description?: string;
}

/** Values for a property or parameter by its name (`x[]` for the items of an array property `x`), e.g. real ids of the fixture. */
export type Hints = Record<string, fc.Arbitrary<unknown> | undefined>;

/** Strings a careless or hostile client sends: ASCII, any unicode (lone surrogates included), control characters, look-alikes. */
export const oddString = (maxLength = 24): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '\u0000',
        'a\u0000b',
        '\ud800',
        'x\udfff',
        '\u202e\u2066rtl',
        '\ufeffbom',
        'e\u0301\u0301\u0301',
        '\u200b',
        '🥖🧈',
        '../../etc/passwd',
        "' OR 1=1 --",
        '%00',
        '%s%n',
        '${jndi:x}',
        '<script>',
        '\r\nX-Injected: 1',
        '\\u0000',
        'ＡＢＣ',
        '\uffff',
        'null',
        '',
      ),
    },
  );

const isoDate = fc.date({
  min: new Date('1970-01-01T00:00:00Z'),
  max: new Date('2100-01-01T00:00:00Z'),
  noInvalidDate: true,
});

/** Builds fast-check arbitraries for schemas of one OpenAPI document, resolving `$ref`s (a dangling one is "any value"). */
export class SchemaArbitraries {
  constructor(
    private readonly components: Record<string, Schema>,
    private readonly hints: Hints = {},
  ) {}

  resolve(s: Schema): Schema | null {
    if (!s.$ref) return s;
    const name = s.$ref.replace('#/components/schemas/', '');
    return this.components[name] ?? null;
  }

  /** A value the schema accepts (as far as the schema says; the service may know more rules). */
  valid(schema: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
    const hint = name ? this.hints[name] : undefined;
    const own = this.build(schema, name, depth);
    return hint ? fc.oneof({ weight: 3, arbitrary: hint }, { weight: 2, arbitrary: own }) : own;
  }

  private build(schema: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (!s) return anyJson(depth);
    if (s.const !== undefined) return fc.constant(s.const);
    if (s.enum) return fc.constantFrom(...s.enum);
    const alternatives = s.oneOf ?? s.anyOf;
    if (alternatives) {
      // past a few levels, keep recursion finite: only alternatives that are not references
      const usable = depth > 3 ? alternatives.filter((a) => !a.$ref) : alternatives;
      return fc.oneof(...(usable.length ? usable : alternatives.slice(-1)).map((a) => this.build(a, name, depth + 1)));
    }
    const types = Array.isArray(s.type)
      ? s.type
      : s.type
        ? [s.type]
        : s.properties
          ? ['object']
          : s.items
            ? ['array']
            : [];
    if (!types.length) return depth > 4 ? fc.constant(null) : anyJson(depth);
    return fc.oneof(...types.map((t) => this.typed(t, s, name, depth)));
  }

  private typed(type: string, s: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? Math.max(1000, (s.minimum ?? 0) + 1000) });
      case 'number':
        return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case 'string':
        return this.string(s);
      case 'array': {
        const min = s.minItems ?? 0;
        const max = Math.min(s.maxItems ?? 4, min + 4);
        if (s.prefixItems) return fc.tuple(...s.prefixItems.map((p) => this.valid(p, `${name}[]`, depth + 1)));
        if (depth > 4) return fc.constant([]);
        return fc.array(this.valid(s.items ?? {}, `${name}[]`, depth + 1), { minLength: min, maxLength: max });
      }
      case 'object': {
        const props = s.properties ?? {};
        const required = new Set(s.required ?? []);
        const shape: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, p] of Object.entries(props)) {
          if (depth > 4 && !required.has(k)) continue;
          shape[k] = this.valid(p, k, depth + 1);
        }
        if (!Object.keys(shape).length) return depth > 4 ? fc.constant({}) : anyObject(depth);
        return fc.record(shape, { requiredKeys: Object.keys(shape).filter((k) => required.has(k)) });
      }
      default:
        return anyJson(depth);
    }
  }

  private string(s: Schema): fc.Arbitrary<string> {
    const minLength = s.minLength ?? 0;
    const maxLength = Math.min(s.maxLength ?? 40, minLength + 40);
    switch (s.format) {
      case 'uuid':
        return fc.uuid();
      case 'date-time':
        return isoDate.map((d) => d.toISOString());
      case 'date':
        return isoDate.map((d) => d.toISOString().slice(0, 10));
    }
    if (s.pattern) {
      if (s.pattern.includes('\\/'))
        return fc.constantFrom(
          'text/plain',
          'text/markdown',
          'application/pdf',
          'application/json',
          'image/png',
          'application/octet-stream',
        );
      try {
        return fc.stringMatching(new RegExp(s.pattern), { size: 'small' });
      } catch {
        /* fall through */
      }
    }
    return fc.oneof(
      { weight: 5, arbitrary: fc.string({ minLength, maxLength }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
    );
  }
}

const key = fc.oneof(
  { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: oddString(12) },
);

/** A small JSON object of any shape. */
export function anyObject(depth = 0): fc.Arbitrary<Record<string, unknown>> {
  return fc.dictionary(key, fc.jsonValue({ maxDepth: Math.max(0, 3 - depth) }), { maxKeys: 5 });
}

/** Any small JSON value. */
export function anyJson(depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof(anyObject(depth), fc.jsonValue({ maxDepth: Math.max(0, 2 - depth) }));
}
