import { envReaders } from './config/env';
import { LimitsConfig, loadLimitsConfig } from './config/limits';
import { loadMediaConfig, MediaConfig } from './config/media';
import { loadModelsConfig, ModelsConfig } from './config/models';
import { loadSearchConfig, SearchConfig } from './config/search';
import { loadServerConfig, ServerConfig } from './config/server';
import { loadStorageConfig, StorageConfig } from './config/storage';

/** Every setting Larder reads from the environment (docs/configuration.md lists them), one part per concern under config/. */
export type LarderConfig = ServerConfig & StorageConfig & ModelsConfig & MediaConfig & SearchConfig & LimitsConfig;

/** Reads and checks every setting; a malformed or inconsistent one fails the start with an error naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LarderConfig {
  const readers = envReaders(env);
  const models = loadModelsConfig(env, readers);
  return {
    ...models,
    ...loadMediaConfig(env, readers),
    ...loadSearchConfig(env, readers, models.embedder),
    ...loadServerConfig(env, readers),
    ...loadStorageConfig(env, readers),
    ...loadLimitsConfig(env, readers),
  };
}
