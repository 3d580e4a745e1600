/* eslint-disable @typescript-eslint/no-explicit-any */
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(60_000);

describe('the service schema', () => {
  let t: TestLarder;
  beforeAll(async () => {
    t = await startTestLarder();
  });
  afterAll(async () => t?.close());

  it('serves an OpenAPI 3.1 document at /v1/schemas/mxjson and /openapi.json, with request schemas from the DTOs', async () => {
    const res = await fetch(`${t.baseURL}/v1/schemas/mxjson`);
    expect(res.status).toBe(200);
    const doc: any = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Larder', version: expect.any(String) });
    expect(await (await fetch(`${t.baseURL}/openapi.json`)).json()).toEqual(doc);
    for (const path of [
      '/v1/files',
      '/v1/stores',
      '/v1/stores/search',
      '/v1/stores/files/search',
      '/v1/stores/grep',
      '/v1/stores/{store_identifier}/files',
      '/v1/stores/{store_identifier}/events',
      '/v1/billing/summary',
      '/v1/api-keys',
    ]) {
      expect(doc.paths[path]).toBeDefined();
    }
    // a class-validator DTO became a JSON schema with its constraints
    const create = doc.paths['/v1/stores'].post.requestBody.content['application/json'].schema.$ref.split('/').pop();
    expect(doc.components.schemas[create].properties.name).toMatchObject({ type: 'string' });
    // hand-parsed bodies are described too
    expect(doc.paths['/v1/stores/search'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/StoreSearchParams',
    );
    expect(doc.components.schemas.StoreSearchParams.required).toEqual(['query', 'store_identifiers']);
    expect(doc.paths['/v1/stores/files/search'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/StoreFileSearchParams',
    );
    expect(doc.components.schemas.StoreFileSearchOptions.properties).toMatchObject({
      chunks_per_file: { type: 'integer' },
      rerank: expect.anything(),
    });
    expect(doc.components.schemas.SearchFilterCondition.properties.operator.enum).toContain('contains');
  });

  it('serves interactive docs at /docs without an API key or the internet', async () => {
    const page = await fetch(`${t.baseURL}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    const asset = html.match(/src="\.?\/?([^"]*swagger-ui-bundle\.js)"/)?.[1];
    expect(asset).toBeDefined();
    expect((await fetch(`${t.baseURL}/docs/${asset!.replace(/^docs\//, '')}`)).status).toBe(200);
  });
});
