/** Grep, list-chunks and metadata-facets request validation: their 422 entries and compiled sorts. */
import 'reflect-metadata';
import { validateRequest } from '@larder/kernel';
import { GrepStoresRequestDto } from './queries/grep-stores/grep-stores.request.dto';
import { ListChunksRequestDto } from './queries/list-chunks/list-chunks.request.dto';
import { MetadataFacetsRequestDto } from './queries/metadata-facets/metadata-facets.request.dto';
import { problems, Problem, S } from './testing/request-problems';

describe('search request DTOs answer the contract’s 422 entries (loc, type, msg)', () => {
  it.each<[string, unknown, Problem[]]>([
    ['no pattern', S, [[['body', 'pattern'], 'missing', 'Field required']]],
    [
      'a number as pattern',
      { ...S, pattern: 5 },
      [[['body', 'pattern'], 'string_type', 'Input should be a valid string']],
    ],
    [
      'an empty pattern',
      { ...S, pattern: '' },
      [[['body', 'pattern'], 'string_too_long', 'String should have 1 to 1024 characters']],
    ],
    [
      'an unknown target',
      { ...S, pattern: 'x', targets: ['images'] },
      [[['body', 'targets'], 'enum', "Input should be a non-empty list of 'text' and 'generated'"]],
    ],
    [
      'case_sensitive "no"',
      { ...S, pattern: 'x', case_sensitive: 'no' },
      [[['body', 'case_sensitive'], 'bool_type', 'Input should be a valid boolean']],
    ],
  ])('grep: %s', async (_, body, expected) => {
    expect(await problems(GrepStoresRequestDto, body)).toEqual(expected);
  });

  it.each<[string, unknown, Problem[]]>([
    [
      'sort_by a number',
      { ...S, sort_by: 5 },
      [[['body', 'sort_by'], 'value_error', 'Input should be a metadata path or a [path, ascending] pair']],
    ],
    [
      'sort_by without a field',
      { ...S, sort_by: ['metadata.', true] },
      [[['body', 'sort_by'], 'value_error', 'The path names no field']],
    ],
  ])('list-chunks: %s', async (_, body, expected) => {
    expect(await problems(ListChunksRequestDto, body)).toEqual(expected);
  });

  it('list-chunks: sort_by addresses file or chunk metadata', async () => {
    expect(
      (await validateRequest(ListChunksRequestDto, { ...S, sort_by: 'generated_metadata.page' })).params().sort,
    ).toEqual({ target: 'chunk', path: ['page'], ascending: true });
    expect(
      (await validateRequest(ListChunksRequestDto, { ...S, sort_by: ['metadata.year', false] })).params().sort,
    ).toEqual({ target: 'file', path: ['year'], ascending: false });
  });

  it.each<[string, unknown, Problem[]]>([
    [
      'max_fields 0',
      { ...S, max_fields: 0 },
      [[['body', 'max_fields'], 'value_error', 'Input should be an integer from 1 to 256']],
    ],
    [
      'max_files 100001',
      { ...S, max_files: 100_001 },
      [[['body', 'max_files'], 'value_error', 'Input should be an integer from 1 to 100000']],
    ],
    [
      'facets not keys',
      { ...S, facets: [1] },
      [[['body', 'facets'], 'list_type', 'Input should be a list of metadata keys']],
    ],
    ['no query is fine', S, []],
  ])('facets: %s', async (_, body, expected) => {
    expect(await problems(MetadataFacetsRequestDto, body)).toEqual(expected);
  });
});
