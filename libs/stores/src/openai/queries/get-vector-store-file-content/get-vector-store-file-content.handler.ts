import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BadRequestError, metadataAsMap, NotFoundError } from '@larder/kernel';
import { BLOB_STORAGE, BlobNotFoundError, BlobStorage } from '@larder/blob-storage';
import { parseFile, ParsedDocument } from '@larder/ingestion';
import { StoreFilesWriter } from '../../../store-files.writer';
import { STORES_CONFIG, StoresConfig } from '../../../stores.config';
import { GetVectorStoreFileContentQuery } from './get-vector-store-file-content.query';

type TextPart = { type: 'text'; text: string };

/**
 * OpenAI's file content: the parsed text of the store file's content. Its documented shape
 * (`file_id`, `filename`, `attributes`, `content[]`) and the page its client reads (`data[]`) in one
 * answer: the same parts under both.
 */
export interface VectorStoreFileContentResponse {
  object: 'vector_store.file_content.page';
  data: TextPart[];
  has_more: false;
  next_page: null;
  file_id: string;
  filename: string;
  attributes: unknown;
  content: TextPart[];
}

/** The document's text as the parsers extract it (before chunking: no overlaps), blocks separated by a blank line. */
export function documentText(doc: ParsedDocument): string {
  const body = doc.blocks
    .map((b) => (b.kind === 'heading' && doc.kind === 'markdown' ? `${'#'.repeat(b.level ?? 1)} ${b.text}` : b.text))
    .join('\n\n');
  return doc.chunkPrefix ? `${doc.chunkPrefix}\n${body}` : body;
}

/** Parses the content the store file was added with, with the parser ingestion uses. */
@QueryHandler(GetVectorStoreFileContentQuery)
export class GetVectorStoreFileContentHandler implements IQueryHandler<
  GetVectorStoreFileContentQuery,
  VectorStoreFileContentResponse
> {
  constructor(
    private readonly storeFiles: StoreFilesWriter,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
    @Inject(STORES_CONFIG) private readonly config: StoresConfig,
  ) {}

  async execute(q: GetVectorStoreFileContentQuery): Promise<VectorStoreFileContentResponse> {
    const f = await this.storeFiles.get(q.organizationId, q.vectorStoreId, q.fileId);
    const parts: Buffer[] = [];
    try {
      for await (const c of await this.blobs.get(f.blobKey)) parts.push(c as Buffer);
    } catch (err) {
      if (err instanceof BlobNotFoundError)
        throw new NotFoundError('This version of the file was replaced or deleted; its content is no longer available');
      throw err;
    }
    const doc = await parseFile(Buffer.concat(parts), f.filename, f.mimeType, {
      limits: this.config.parseLimits,
    }).catch((err: Error) => {
      throw new BadRequestError(`The content of ${f.filename} cannot be parsed as text: ${err.message}`);
    });
    const content: TextPart[] = [{ type: 'text', text: documentText(doc) }];
    return {
      object: 'vector_store.file_content.page',
      data: content,
      has_more: false,
      next_page: null,
      file_id: f.fileId,
      filename: f.filename,
      attributes: metadataAsMap(f.metadata),
      content,
    };
  }
}
