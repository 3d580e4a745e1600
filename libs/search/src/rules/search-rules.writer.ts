import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, NotFoundError, Problems, READ_MODEL_CONSISTENCY, ReadModelConsistency, re2, streamName, ValidationFailedError } from '@larder/kernel';
import { EVENT_STORE, EventStore, handleCommand } from '@larder/event-store';
import { SearchRuleRow, SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import { REGEX_FLAGS, RegexFlag, SearchRuleEntry } from './events';
import { SearchRuleCommand, searchRuleDecider } from './search-rule.aggregate';

type Loc = (string | number)[];
type WithoutClock<T> = T extends unknown ? Omit<T, 'now'> : never;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const nonNegInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** Validates one `Rule` (§14); fills `query` and `store_id` from the parent rule when absent. */
export function parseRuleEntry(v: unknown, loc: Loc, parent: { query: string; storeId: string }, problems: Problems): SearchRuleEntry | null {
  if (!isObject(v)) {
    problems.push({ loc, msg: 'Input should be a rule object', type: 'model_type', input: v });
    return null;
  }
  const str = (k: string, required = true) => {
    const x = v[k];
    if (x === undefined || x === null) {
      if (required) problems.push({ loc: [...loc, k], msg: 'Field required', type: 'missing' });
      return undefined;
    }
    if (typeof x !== 'string') problems.push({ loc: [...loc, k], msg: 'Input should be a valid string', type: 'string_type', input: x });
    return x as string;
  };
  const common = { query: str('query', false) ?? parent.query, store_id: str('store_id', false) ?? parent.storeId };
  switch (v.type) {
    case 'query_string': {
      const substitution = str('substitution');
      return substitution === undefined ? null : { type: 'query_string', ...common, substitution };
    }
    case 'query_regex': {
      const pattern = str('pattern');
      const replacement = str('replacement');
      const flags = (v.flags ?? []) as unknown;
      if (!Array.isArray(flags) || flags.some((f) => !(REGEX_FLAGS as readonly unknown[]).includes(f))) {
        problems.push({ loc: [...loc, 'flags'], msg: `Flags are a list of ${REGEX_FLAGS.join(', ')}`, type: 'enum', input: flags });
        return null;
      }
      if (pattern !== undefined) {
        try {
          re2(pattern);
        } catch (err) {
          problems.push({ loc: [...loc, 'pattern'], msg: `Invalid regular expression (RE2 syntax): ${(err as Error).message}`, type: 'value_error', input: pattern });
        }
      }
      return pattern === undefined || replacement === undefined ? null : { type: 'query_regex', ...common, pattern, replacement, flags: flags as RegexFlag[] };
    }
    case 'chunk_search_result':
    case 'file_search_result': {
      const fileId = str('file_id');
      const chunkIndex = v.chunk_index ?? (v.type === 'file_search_result' ? 0 : undefined);
      if (!nonNegInt(chunkIndex)) problems.push({ loc: [...loc, 'chunk_index'], msg: 'Input should be an integer ≥ 0', type: chunkIndex === undefined ? 'missing' : 'int_type', input: chunkIndex });
      if (!nonNegInt(v.result_index)) problems.push({ loc: [...loc, 'result_index'], msg: 'Input should be an integer ≥ 0', type: v.result_index === undefined ? 'missing' : 'int_type', input: v.result_index });
      if (fileId === undefined || !nonNegInt(chunkIndex) || !nonNegInt(v.result_index)) return null;
      return { type: v.type, ...common, file_id: fileId, chunk_index: chunkIndex as number, result_index: v.result_index as number };
    }
    default:
      problems.push({ loc: [...loc, 'type'], msg: "Input should be 'query_string', 'query_regex', 'chunk_search_result' or 'file_search_result'", type: 'literal_error', input: v.type });
      return null;
  }
}

export function toSearchRuleResponse(r: SearchRuleRow) {
  return { id: r.id, object: 'search_rule' as const, query: r.query, store_id: r.storeId, rules: r.rules, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString() };
}

/** Search rules (§14): one stream per rule. */
@Injectable()
export class SearchRulesWriter {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) private readonly consistency: ReadModelConsistency,
    private readonly reader: SearchRulesReader,
  ) {}

  private async decide(c: WithoutClock<SearchRuleCommand>, actor: string) {
    const r = await handleCommand(this.store, streamName('search_rule', c.ruleId), searchRuleDecider, { ...c, now: this.clock.now() } as SearchRuleCommand, { orgId: c.organizationId, actor }, { newIds: () => this.ids.uuid() });
    if (r.position) await this.consistency.waitFor(['search-rules'], r.position);
    return r;
  }

  parseBody(body: unknown, storeId: string, partial: boolean): { query?: string; rules?: SearchRuleEntry[] } {
    const problems = new Problems();
    if (!isObject(body)) throw new ValidationFailedError([{ loc: ['body'], msg: 'Input should be a JSON object', type: 'model_type', input: body }]);
    let query: string | undefined;
    if (body.query !== undefined && body.query !== null) {
      if (typeof body.query !== 'string' || !body.query.trim()) problems.push({ loc: ['body', 'query'], msg: 'Input should be a non-empty string', type: 'string_type', input: body.query });
      else query = body.query;
    } else if (!partial) problems.push({ loc: ['body', 'query'], msg: 'Field required', type: 'missing' });
    let rules: SearchRuleEntry[] | undefined;
    if (body.rules !== undefined && body.rules !== null) {
      if (!Array.isArray(body.rules)) problems.push({ loc: ['body', 'rules'], msg: 'Input should be a valid list', type: 'list_type', input: body.rules });
      else rules = body.rules.map((r, i) => parseRuleEntry(r, ['body', 'rules', i], { query: query ?? '', storeId }, problems)).filter((r): r is SearchRuleEntry => r !== null);
    } else if (!partial) problems.push({ loc: ['body', 'rules'], msg: 'Field required', type: 'missing' });
    problems.throwIfAny();
    return { query, rules };
  }

  async create(organizationId: string, actor: string, storeId: string, body: unknown): Promise<SearchRuleRow> {
    const { query, rules } = this.parseBody(body, storeId, false);
    const ruleId = this.ids.uuid();
    await this.decide({ type: 'CreateSearchRule', ruleId, storeId, organizationId, query: query!, rules: rules! }, actor);
    return (await this.reader.get(organizationId, storeId, ruleId))!;
  }

  async get(organizationId: string, storeId: string, ruleId: string): Promise<SearchRuleRow> {
    const r = /^[0-9a-f-]{36}$/i.test(ruleId) ? await this.reader.get(organizationId, storeId, ruleId) : null;
    if (!r) throw new NotFoundError(`Search rule ${ruleId} not found`);
    return r;
  }

  async update(organizationId: string, actor: string, storeId: string, ruleId: string, body: unknown): Promise<SearchRuleRow> {
    await this.get(organizationId, storeId, ruleId);
    const { query, rules } = this.parseBody(body, storeId, true);
    await this.decide({ type: 'UpdateSearchRule', ruleId, storeId, organizationId, query, rules }, actor);
    return this.get(organizationId, storeId, ruleId);
  }

  async remove(organizationId: string, actor: string, storeId: string, ruleId: string): Promise<void> {
    await this.get(organizationId, storeId, ruleId);
    await this.decide({ type: 'DeleteSearchRule', ruleId, storeId, organizationId }, actor);
  }

  async removeEntry(organizationId: string, actor: string, storeId: string, ruleId: string, body: unknown): Promise<{ deleted: SearchRuleEntry; remaining: number }> {
    const current = await this.get(organizationId, storeId, ruleId);
    if (!isObject(body) || body.rule === undefined) throw new ValidationFailedError([{ loc: ['body', 'rule'], msg: 'Field required', type: 'missing' }]);
    const problems = new Problems();
    const rule = parseRuleEntry(body.rule, ['body', 'rule'], { query: current.query, storeId }, problems);
    if (problems.length || !rule) throw new ValidationFailedError(problems.list);
    const r = await this.decide({ type: 'DeleteSearchRuleEntry', ruleId, storeId, organizationId, rule }, actor);
    return { deleted: rule, remaining: r.state.rules.length };
  }
}
