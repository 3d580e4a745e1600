import { Inject, Injectable } from '@nestjs/common';
import { RE2JS } from 're2js';
import { CHUNK_INDEX, ChunkIndex } from '@larder/chunk-index';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import { passesFilter, RankedChunk } from '../retrieval';
import type { CommonParams } from '../store-query.request.dto';
import { SearchRuleEntry } from './events';

export type PinRule = Extract<SearchRuleEntry, { result_index: number }>;

/** Python-style regex flags of a `query_regex` rule, in RE2. */
function ruleFlags(flags: string[]): number {
  let f = 0;
  if (flags.includes('IGNORECASE')) f |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('MULTILINE')) f |= RE2JS.MULTILINE;
  if (flags.includes('DOTALL')) f |= RE2JS.DOTALL;
  return f;
}

/** Replaces every match; `\1`, `\g<1>`, `\g<name>` and `$1` in the replacement refer to groups. */
export function regexReplace(pattern: string, flags: string[], replacement: string, input: string): string {
  const m = RE2JS.compile(pattern, ruleFlags(flags)).matcher(input);
  let out = '';
  let last = 0;
  let pos = 0;
  while (pos <= input.length && m.find(pos)) {
    const start = m.start();
    const end = m.end();
    out += input.slice(last, start);
    out += replacement.replace(
      /\\g<(\w+)>|\\(\d+)|\$(\d+)/g,
      (_, name: string | undefined, a: string | undefined, b: string | undefined) => {
        const g = name ?? a ?? b!;
        return (/^\d+$/.test(g) ? m.group(Number(g)) : m.group(g)) ?? '';
      },
    );
    last = end;
    pos = end === start ? end + 1 : end;
  }
  return out + input.slice(last);
}

/** What the triggered rules do to a search: its effective query (null: unchanged) and the chunks to pin. */
export function applyRewrites(
  query: string,
  rules: SearchRuleEntry[],
): { effective: string; rewritten: string | null; pins: PinRule[] } {
  let effective = query;
  const pins: PinRule[] = [];
  for (const r of rules) {
    if (r.type === 'query_string') effective = r.substitution;
    else if (r.type === 'query_regex') effective = regexReplace(r.pattern, r.flags, r.replacement, effective);
    else pins.push(r);
  }
  return { effective, rewritten: effective !== query ? effective : null, pins };
}

/** `chunk_search_result` / `file_search_result` rules: a chunk put at `result_index` of a result list. */
@Injectable()
export class SearchRulePins {
  constructor(@Inject(CHUNK_INDEX) private readonly index: ChunkIndex) {}

  /** Pins in order of `result_index` (lowest first); a pinned chunk still has to pass the request's filters. */
  async pin(
    results: RankedChunk[],
    pins: PinRule[],
    stores: StoreRef[],
    common: Pick<CommonParams, 'filter' | 'fileIds'>,
  ): Promise<RankedChunk[]> {
    if (!pins.length) return results;
    const out = [...results];
    for (const pin of [...pins].sort((a, b) => a.result_index - b.result_index)) {
      const store = stores.find((s) => s.id === pin.store_id) ?? stores[0];
      const [chunk] = await this.index.getChunks(store.id, pin.file_id, [pin.chunk_index]);
      if (!chunk) continue;
      const found = out.findIndex(
        (c) => c.storeId === store.id && c.fileId === pin.file_id && c.chunkIndex === pin.chunk_index,
      );
      let pinned: RankedChunk;
      if (found >= 0) pinned = out.splice(found, 1)[0];
      else {
        const [file] = await this.index.scanChunks({
          storeId: store.id,
          fileIds: { include: [pin.file_id] },
          limit: 1,
        });
        if (!file) continue;
        pinned = {
          ...chunk,
          score: 0,
          filename: file.filename,
          externalId: file.externalId,
          metadata: file.metadata,
          firstStagePosition: null,
          firstStageSource: null,
        };
      }
      if (!passesFilter(pinned, common.filter)) continue;
      if (common.fileIds?.include && !common.fileIds.include.includes(pinned.fileId)) continue;
      if (common.fileIds?.exclude?.includes(pinned.fileId)) continue;
      const at = Math.min(pin.result_index, out.length);
      // a pinned chunk takes the score of the place it takes, so the list stays ordered
      pinned = { ...pinned, score: Math.max(pinned.score, out[at]?.score ?? out[at - 1]?.score ?? pinned.score) };
      out.splice(at, 0, pinned);
    }
    return out;
  }
}
