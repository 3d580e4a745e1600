import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import { Retrieval } from './retrieval';
import { WebRetrieval } from './web/web-retrieval';
import { StoreAccess } from './store-access';
import { SearchActivity } from './search-activity';
import { SearchAdmission } from './search-admission';
import { SearchRulePins } from './rules/search-rule-effects';
import { SearchRuleWriter } from './rules/search-rule.writer';
import { SearchStoresHandler } from './queries/search-stores/search-stores.handler';
import { SearchStoresHttpController } from './queries/search-stores/search-stores.http.controller';
import { SearchFilesHandler } from './queries/search-files/search-files.handler';
import { SearchFilesHttpController } from './queries/search-files/search-files.http.controller';
import { GrepStoresHandler } from './queries/grep-stores/grep-stores.handler';
import { GrepStoresHttpController } from './queries/grep-stores/grep-stores.http.controller';
import { ListChunksHandler } from './queries/list-chunks/list-chunks.handler';
import { ListChunksHttpController } from './queries/list-chunks/list-chunks.http.controller';
import { MetadataFacetsHandler } from './queries/metadata-facets/metadata-facets.handler';
import { MetadataFacetsHttpController } from './queries/metadata-facets/metadata-facets.http.controller';
import { QuestionAnsweringHandler } from './queries/question-answering/question-answering.handler';
import { QuestionAnsweringHttpController } from './queries/question-answering/question-answering.http.controller';
import { AgenticSearch } from './agentic/agentic-search';
import { GetSearchRuleHandler } from './queries/get-search-rule/get-search-rule.handler';
import { GetSearchRuleHttpController } from './queries/get-search-rule/get-search-rule.http.controller';
import { CreateSearchRuleHandler } from './commands/create-search-rule/create-search-rule.handler';
import { CreateSearchRuleHttpController } from './commands/create-search-rule/create-search-rule.http.controller';
import { UpdateSearchRuleHandler } from './commands/update-search-rule/update-search-rule.handler';
import { UpdateSearchRuleHttpController } from './commands/update-search-rule/update-search-rule.http.controller';
import { DeleteSearchRuleHandler } from './commands/delete-search-rule/delete-search-rule.handler';
import { DeleteSearchRuleHttpController } from './commands/delete-search-rule/delete-search-rule.http.controller';
import { DeleteSearchRuleEntryHandler } from './commands/delete-search-rule-entry/delete-search-rule-entry.handler';
import { DeleteSearchRuleEntryHttpController } from './commands/delete-search-rule-entry/delete-search-rule-entry.http.controller';
import { CreateChatCompletionHandler } from './commands/create-chat-completion/create-chat-completion.handler';
import { CreateChatCompletionHttpController } from './commands/create-chat-completion/create-chat-completion.http.controller';
import { CreateResponseHandler } from './commands/create-response/create-response.handler';
import { CreateResponseHttpController } from './commands/create-response/create-response.http.controller';
import { DeleteResponseHandler } from './commands/delete-response/delete-response.handler';
import { DeleteResponseHttpController } from './commands/delete-response/delete-response.http.controller';
import { GetResponseHandler } from './queries/get-response/get-response.handler';
import { GetResponseHttpController } from './queries/get-response/get-response.http.controller';
import { StoredResponses } from './responses/stored-responses';
import { HostedTools } from './chat/hosted-tools';
import { Conversations } from './chat/conversations';
import { ToolTickets } from './tool-tickets/tool-tickets';
import { ServedModels } from './models/served-models';
import { CreateEmbeddingsHandler } from './queries/create-embeddings/create-embeddings.handler';
import { CreateEmbeddingsHttpController } from './queries/create-embeddings/create-embeddings.http.controller';
import { RerankHandler } from './queries/rerank/rerank.handler';
import { RerankHttpController } from './queries/rerank/rerank.http.controller';
import { ListModelsHandler } from './queries/list-models/list-models.handler';
import { ListModelsHttpController } from './queries/list-models/list-models.http.controller';
import { GetModelHandler } from './queries/get-model/get-model.handler';
import { GetModelHttpController } from './queries/get-model/get-model.http.controller';
import { SearchVectorStoreHandler } from './openai/queries/search-vector-store/search-vector-store.handler';
import { QueryRewriter } from './query-rewriter';
import { SearchVectorStoreHttpController } from './openai/queries/search-vector-store/search-vector-store.http.controller';

export { SEARCH_CONFIG } from './search.config';
export { Retrieval } from './retrieval';
export { SearchActivity } from './search-activity';
export { SearchAdmission, defaultAdmissionLimits } from './search-admission';
export type { AdmissionLimits, SearchConfig } from './search.config';
export { RERANKER } from './reranker.port';
export { CHAT_CONFIG } from './chat/chat.config';
export type { ChatConfig } from './chat/chat.config';
export type { Reranker } from './reranker.port';
export { MODELS_CONFIG } from './models/models.config';
export type { ModelsConfig } from './models/models.config';
export { WEB_SEARCH, WEB_STORE } from './web/web-search.port';
export type { WebSearch, WebSearchProvider, WebResult, WebSearchOutcome } from './web/web-search.port';

/**
 * Search over stores (plain and agentic) and over their files, search rules, grep, list-chunks,
 * facets and question answering; chat completions and OpenAI's Responses API, embeddings,
 * reranking and the served models.
 */
@Module({
  imports: [CqrsModule],
  controllers: [
    SearchStoresHttpController,
    SearchFilesHttpController,
    GrepStoresHttpController,
    ListChunksHttpController,
    MetadataFacetsHttpController,
    QuestionAnsweringHttpController,
    CreateSearchRuleHttpController,
    GetSearchRuleHttpController,
    UpdateSearchRuleHttpController,
    DeleteSearchRuleHttpController,
    DeleteSearchRuleEntryHttpController,
    CreateChatCompletionHttpController,
    // OpenAI's Responses API over the same model, tools and stores
    CreateResponseHttpController,
    GetResponseHttpController,
    DeleteResponseHttpController,
    CreateEmbeddingsHttpController,
    RerankHttpController,
    ListModelsHttpController,
    GetModelHttpController,
    // OpenAI's vector store search: the store search above, in OpenAI's wire shape
    SearchVectorStoreHttpController,
  ],
  providers: [
    StoresReader,
    StoreFilesReader,
    SearchRulesReader,
    StoreAccess,
    Retrieval,
    WebRetrieval,
    AgenticSearch,
    SearchRulePins,
    SearchActivity,
    SearchAdmission,
    SearchRuleWriter,
    SearchStoresHandler,
    SearchFilesHandler,
    GrepStoresHandler,
    ListChunksHandler,
    MetadataFacetsHandler,
    QuestionAnsweringHandler,
    GetSearchRuleHandler,
    CreateSearchRuleHandler,
    UpdateSearchRuleHandler,
    DeleteSearchRuleHandler,
    DeleteSearchRuleEntryHandler,
    HostedTools,
    Conversations,
    ToolTickets,
    CreateChatCompletionHandler,
    StoredResponses,
    CreateResponseHandler,
    GetResponseHandler,
    DeleteResponseHandler,
    ServedModels,
    CreateEmbeddingsHandler,
    RerankHandler,
    ListModelsHandler,
    GetModelHandler,
    SearchVectorStoreHandler,
    QueryRewriter,
  ],
  exports: [StoreAccess, Retrieval],
})
export class SearchModule {}
