import 'reflect-metadata';
import { ValidationFailedError } from '@larder/kernel';
import { LarderValidationPipe } from './validation.pipe';
import { CreateApiKeyRequestDto } from '../../../../libs/api-keys/src/commands/create-api-key/create-api-key.request.dto';
import { ListApiKeysRequestDto } from '../../../../libs/api-keys/src/queries/list-api-keys/list-api-keys.request.dto';
import { CreateStoreRequestDto } from '../../../../libs/stores/src/commands/create-store/create-store.request.dto';

const pipe = new LarderValidationPipe();
const body = (value: unknown) => pipe.transform(value, { type: 'body', metatype: CreateApiKeyRequestDto });
const detail = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ValidationFailedError) return e.detail.map((d) => [d.loc.join('.'), d.type]);
    throw e;
  }
  throw new Error('expected a validation failure');
};

describe('DTO validation → HTTPValidationError detail', () => {
  it('accepts a valid create body and an empty one', async () => {
    await expect(
      body({
        name: 'k',
        scope: [{ method: 'read', resource_type: 'store', resource_id: 's1' }],
        expires_at: '2030-01-01T00:00:00Z',
      }),
    ).resolves.toBeInstanceOf(CreateApiKeyRequestDto);
    await expect(body(undefined)).resolves.toBeInstanceOf(CreateApiKeyRequestDto);
    await expect(body({ scope: null, expires_at: null })).resolves.toBeInstanceOf(CreateApiKeyRequestDto);
  });

  it('locates each bad field', async () => {
    expect(
      await detail(
        body({
          name: 7,
          scope: [{ method: 'fly' }, { method: 'read', resource_type: 'galaxy' }],
          expires_at: 'tomorrow',
        }),
      ),
    ).toEqual(
      expect.arrayContaining([
        ['body.name', 'string_type'],
        ['body.scope.0.method', 'enum'],
        ['body.scope.1.resource_type', 'enum'],
        ['body.expires_at', 'datetime_parsing'],
      ]),
    );
  });

  it('rejects a body that is not an object', async () => {
    expect(await detail(body([1, 2]))).toEqual([['body', 'model_attributes_type']]);
    expect(await detail(body('text'))).toEqual([['body', 'model_attributes_type']]);
  });

  it('validates and converts query parameters', async () => {
    const ok = (await pipe.transform(
      { limit: '5', offset: '10' },
      { type: 'query', metatype: ListApiKeysRequestDto },
    )) as ListApiKeysRequestDto;
    expect(ok).toMatchObject({ limit: 5, offset: 10 });
    expect(
      await detail(pipe.transform({ limit: '0', offset: '-1' }, { type: 'query', metatype: ListApiKeysRequestDto })),
    ).toEqual([
      ['query.limit', 'greater_than_equal'],
      ['query.offset', 'greater_than_equal'],
    ]);
    expect(await detail(pipe.transform({ limit: '1001' }, { type: 'query', metatype: ListApiKeysRequestDto }))).toEqual(
      [['query.limit', 'less_than_equal']],
    );
  });

  it('refuses keys named constructor or __proto__ in nested objects (class-transformer threw on them, or dropped them)', async () => {
    const store = (value: unknown) => pipe.transform(value, { type: 'body', metatype: CreateStoreRequestDto });
    expect(await detail(store({ name: 's', metadata: { constructor: 'Bob' } }))).toEqual([
      ['body.metadata.constructor', 'value_error'],
    ]);
    expect(await detail(store({ name: 's', metadata: { x: { constructor: [1] } } }))).toEqual([
      ['body.metadata.x.constructor', 'value_error'],
    ]);
    expect(await detail(store(JSON.parse('{"name":"s","metadata":{"__proto__":{"a":1}}}')))).toEqual([
      ['body.metadata.__proto__', 'value_error'],
    ]);
    expect(await detail(body({ name: 'k', scope: [{ method: 'read', constructor: null }] }))).toEqual([
      ['body.scope.0.constructor', 'value_error'],
    ]);
    // at the top level class-transformer maps onto the DTO class, and such a key is just an unknown field
    await expect(
      store({ name: 's', constructor: 'x', metadata: { prototype: 1, constructors: 2 } }),
    ).resolves.toMatchObject({ name: 's', metadata: { prototype: 1, constructors: 2 } });
  });
});
