import { randomBytes } from 'crypto';
import { chunkIndexContract } from '../testing/chunk-index.contract';
import { ElasticsearchChunkIndex } from './elasticsearch.chunk-index';

const url = process.env.ELASTICSEARCH_URL;
if (url) {
  chunkIndexContract(
    'Elasticsearch',
    async () => new ElasticsearchChunkIndex({ url, prefix: `larder-test-${randomBytes(4).toString('hex')}-` }),
    async (index) => (index as ElasticsearchChunkIndex).destroy(),
  );
} else {
  // eslint-disable-next-line no-console
  console.warn('ElasticsearchChunkIndex contract suite SKIPPED: set ELASTICSEARCH_URL (docker-compose) to run it.');
  describe('ChunkIndex contract: Elasticsearch', () => {
    it.skip('SKIPPED: ELASTICSEARCH_URL is not set (start Elasticsearch with `docker compose up elasticsearch`)', () =>
      undefined);
  });
}
