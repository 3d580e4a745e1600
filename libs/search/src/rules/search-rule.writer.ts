import { Injectable } from '@nestjs/common';
import { IdGenerator, NotFoundError, isUuid } from '@larder/kernel';
import { commandHandler, CommandWriter, Decided as Stored, WithoutClock, Writes } from '@larder/event-store';
import { SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import { searchRuleStream } from '../streams';
import { SearchRuleCommand, searchRuleDecider, SearchRuleState } from './search-rule.aggregate';
import { SearchRuleView } from './search-rule.response';

export interface Decided extends Stored<SearchRuleState> {
  organizationId: string;
  storeId: string;
  ruleId: string;
  at: Date;
}

/** One decider bound to its stream: every write to a search rule goes through it. */
export const handleSearchRule = commandHandler(searchRuleDecider, (c: SearchRuleCommand) => searchRuleStream(c.ruleId));

export const isRuleId = isUuid;

/**
 * Runs one decision on a search rule: appends, then waits for the search-rules read model (`settle`).
 * When the read model is late, the answer comes from the decided state and the response carries
 * `Larder-Read-Lag`: the write is stored, and nothing after the append turns it into an error.
 */
@Injectable()
export class SearchRuleWriter {
  private readonly rules: CommandWriter<SearchRuleState, SearchRuleCommand>;

  constructor(
    private readonly writes: Writes,
    private readonly reader: SearchRulesReader,
  ) {
    this.rules = writes.writer(handleSearchRule, ['search-rules']);
  }

  get ids(): IdGenerator {
    return this.writes.ids;
  }

  /** Appends the decision, then waits for the read model (`settled`: it has caught up). */
  async decide(command: WithoutClock<SearchRuleCommand>, actor: string): Promise<Decided> {
    if (!isRuleId(command.ruleId)) throw new NotFoundError(`Search rule ${command.ruleId} not found`);
    const at = this.writes.now();
    const decided = await this.rules.decide({ ...command, now: at }, actor);
    return { ...decided, organizationId: command.organizationId, storeId: command.storeId, ruleId: command.ruleId, at };
  }

  /** The rule after a decision: from the read model once it has caught up, else as decided (its creation time is its first event's). */
  async rule(d: Decided): Promise<SearchRuleView> {
    return this.rules.read(
      d,
      () => this.reader.get(d.organizationId, d.storeId, d.ruleId),
      async (s) => {
        const [first] = await this.writes.store.readStream(searchRuleStream(d.ruleId), { maxCount: 1 });
        const createdAt = first ? new Date((first.data as { at: string }).at) : d.at;
        return { id: d.ruleId, storeId: d.storeId, query: s.query, rules: s.rules, createdAt, updatedAt: d.at };
      },
    );
  }
}
