import { join } from 'path';
import { ChunkIndex } from '@larder/chunk-index';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { RM3_FEEDBACK } from '@larder/chunk-index/embedded/sqlite.options';
import type { IvfPrefetch } from '@larder/chunk-index/embedded/ivf.prefetch';
import { LarderConfig } from '../config';

/** The embedded index (SQLite under dataDir) unless ELASTICSEARCH_URL; the Elasticsearch adapter is loaded only then. */
export function createChunkIndex(config: LarderConfig, ivfPrefetch?: IvfPrefetch): ChunkIndex {
  if (config.chunkIndex === 'elasticsearch') {
    ivfPrefetch?.cancel();
    const { ElasticsearchChunkIndex } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@larder/chunk-index/elasticsearch/elasticsearch.chunk-index') as typeof import('@larder/chunk-index/elasticsearch/elasticsearch.chunk-index');
    return new ElasticsearchChunkIndex({
      url: config.elasticsearchUrl!,
      prefix: config.elasticsearchIndexPrefix,
      apiKey: process.env.ELASTICSEARCH_API_KEY || null,
    });
  }
  return new SqliteChunkIndex(join(config.dataDir, 'chunk-index', 'chunks.sqlite'), {
    ivfMinVectors: config.ivfMinVectors,
    ivfLists: config.ivfLists,
    ivfProbes: config.ivfProbes,
    readWorker: config.indexReadWorker,
    ivfPrefetch,
    lexicalPreloadBytes: config.searchLexicalPreloadMb * 2 ** 20,
    pageCacheBytes: config.indexPageCacheMb * 2 ** 20,
    exactScanCacheBytes: config.searchExactScanCacheMb * 2 ** 20,
    lexical: {
      feedback: config.searchLexicalFeedback ? RM3_FEEDBACK : null,
      blockCacheBytes: config.searchLexicalCacheMb * 2 ** 20,
      ...(config.searchLexicalFeedbackMinWords !== null
        ? { feedbackMinWords: config.searchLexicalFeedbackMinWords }
        : {}),
      ...(config.searchBm25K1 !== null ? { k1: config.searchBm25K1 } : {}),
      ...(config.searchBm25B !== null ? { b: config.searchBm25B } : {}),
      ...(config.searchBm25CodeB !== null ? { codeB: config.searchBm25CodeB } : {}),
      ...(config.searchBm25MultiChunkB !== null ? { multiChunkB: config.searchBm25MultiChunkB } : {}),
      ...(config.searchHeadingWeight !== null ? { headingWeight: config.searchHeadingWeight } : {}),
    },
  });
}
