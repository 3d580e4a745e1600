import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { ApiKeyWriter } from './api-key.writer';
import { ApiKeyAuthGuard } from './auth/api-key-auth.guard';
import { ApiKeyUsageRecorder } from './auth/api-key-usage.recorder';
import { UnsettledKeyChanges } from './auth/unsettled-key-changes';
import { CreateApiKeyHandler } from './commands/create-api-key/create-api-key.handler';
import { CreateApiKeyHttpController } from './commands/create-api-key/create-api-key.http.controller';
import { UpdateApiKeyHandler } from './commands/update-api-key/update-api-key.handler';
import { UpdateApiKeyHttpController } from './commands/update-api-key/update-api-key.http.controller';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.handler';
import { RevokeApiKeyHttpController } from './commands/revoke-api-key/revoke-api-key.http.controller';
import { RerollApiKeyHandler } from './commands/reroll-api-key/reroll-api-key.handler';
import { RerollApiKeyHttpController } from './commands/reroll-api-key/reroll-api-key.http.controller';
import { DeleteApiKeyHandler } from './commands/delete-api-key/delete-api-key.handler';
import { DeleteApiKeyHttpController } from './commands/delete-api-key/delete-api-key.http.controller';
import { ListApiKeysHandler } from './queries/list-api-keys/list-api-keys.handler';
import { ListApiKeysHttpController } from './queries/list-api-keys/list-api-keys.http.controller';
import { GetApiKeyHandler } from './queries/get-api-key/get-api-key.handler';
import { GetApiKeyHttpController } from './queries/get-api-key/get-api-key.http.controller';

export { ApiKeyAuthGuard } from './auth/api-key-auth.guard';
export { ApiKeyUsageRecorder } from './auth/api-key-usage.recorder';
export { CreateApiKeyCommand } from './commands/create-api-key/create-api-key.command';
export type { ApiKeyCreatedResponse, ApiKeyResponse } from './api-key.response';
export { hashSecret, newSecret, redact, uuidFrom, SECRET_PREFIX, LEGACY_SECRET_PREFIX } from './secrets';

@Module({
  imports: [CqrsModule],
  controllers: [
    // static paths before parameterised ones
    ListApiKeysHttpController,
    CreateApiKeyHttpController,
    GetApiKeyHttpController,
    UpdateApiKeyHttpController,
    DeleteApiKeyHttpController,
    RevokeApiKeyHttpController,
    RerollApiKeyHttpController,
  ],
  providers: [
    ApiKeysReader,
    StoresReader,
    ApiKeyWriter,
    ApiKeyUsageRecorder,
    UnsettledKeyChanges,
    ApiKeyAuthGuard,
    CreateApiKeyHandler,
    UpdateApiKeyHandler,
    RevokeApiKeyHandler,
    RerollApiKeyHandler,
    DeleteApiKeyHandler,
    ListApiKeysHandler,
    GetApiKeyHandler,
  ],
  exports: [ApiKeysReader, ApiKeyUsageRecorder, ApiKeyAuthGuard],
})
export class ApiKeysModule {}
