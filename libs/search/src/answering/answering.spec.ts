import { stemOf as stem } from '@larder/chunk-index/analysis/analyzer';
import { contentTerms, sentences } from './text';
import { extractiveAnswer, NO_ANSWER } from './extractive-answer';
import { answerMessages, citedSources } from './llm-answer';
import { feedbackTerms } from '../agentic/feedback';
import { FeedbackPlanner, PlannerView } from '../agentic/planner';

describe('answering text helpers', () => {
  it('splits sentences at end punctuation, blank lines, list items and headings, not after abbreviations', () => {
    const text =
      '# Jam\n\nBoil the fruit, e.g. plums. Then fill jars! Is it set? Test it.\n- first item\n- second item';
    expect(sentences(text).map((s) => s.text)).toEqual([
      'Jam',
      'Boil the fruit, e.g. plums.',
      'Then fill jars!',
      'Is it set?',
      'Test it.',
      'first item',
      'second item',
    ]);
    const s = sentences('One sentence.  Two sentences.')[1];
    expect('One sentence.  Two sentences.'.slice(s.start)).toBe('Two sentences.');
  });

  it('stems word forms together and keeps short words and numbers', () => {
    expect(new Set(['retrieval', 'retrieved', 'retrieving', 'retrieves'].map(stem)).size).toBe(1);
    expect(stem('ferments')).toBe(stem('fermenting'));
    expect(stem('jams')).toBe(stem('jam'));
    expect(stem('e42')).toBe('e42');
    expect(stem('is')).toBe('is');
  });

  it('content terms drop stop words and question words', () => {
    expect(contentTerms('How long does the sauerkraut take to ferment?')).toEqual([
      'long',
      stem('sauerkraut'),
      'take',
      stem('ferment'),
    ]);
  });
});

describe('extractive answers', () => {
  const sources = [
    { text: 'Jam needs sugar. Boil strawberries with sugar until the jam sets on a cold plate.', score: 0.9 },
    {
      text: 'Sauerkraut is cabbage. Lactic fermentation turns the cabbage sour in about three weeks. Keep it under brine.',
      score: 0.7,
    },
  ];

  it('answers with the sentence that answers the question, followed by its citation', async () => {
    const a = await extractiveAnswer('How many weeks does the cabbage take to turn sour?', sources, { cite: true });
    expect(a.found).toBe(true);
    expect(a.answer.startsWith('Lactic fermentation turns the cabbage sour in about three weeks. <cite i="1"/>')).toBe(
      true,
    );
    expect(a.cited[0]).toBe(1);
  });

  it('leaves the markers out when citations are off, and says so when nothing answers', async () => {
    const plain = await extractiveAnswer('How many weeks does the cabbage take to turn sour?', sources, {
      cite: false,
    });
    expect(plain.answer).not.toContain('<cite');
    expect(plain.cited).toEqual([]);
    const none = await extractiveAnswer('Who wrote the Iliad?', sources, { cite: true });
    expect(none).toEqual({ answer: NO_ANSWER, cited: [], found: false });
    expect((await extractiveAnswer('anything', [], { cite: true })).found).toBe(false);
  });

  it('uses semantic similarity for a sentence that shares no word with the question', async () => {
    const a = await extractiveAnswer('duration of souring', sources, {
      cite: true,
      similarity: async (_q, texts) => texts.map((t) => (t.includes('three weeks') ? 0.9 : 0.1)),
    });
    expect(a.answer).toContain('three weeks');
  });

  it('never repeats a near-duplicate sentence and keeps within the sentence limit', async () => {
    const dup = [
      { text: 'Brine must cover the cabbage. Brine must cover the cabbage!', score: 1 },
      { text: 'Cover the cabbage with brine to keep it from spoiling.', score: 0.5 },
    ];
    const a = await extractiveAnswer('Should brine cover the cabbage?', dup, { cite: true, maxSentences: 2 });
    expect(a.answer.match(/<cite/g)!.length).toBeLessThanOrEqual(2);
    expect(a.answer.match(/Brine must cover the cabbage/g)!.length).toBe(1);
  });
});

describe('model answers', () => {
  it('numbers the sources, asks for <cite i="N"/> markers and carries the instructions', () => {
    const [system, user] = answerMessages('Why?', [{ text: 'Because.', filename: 'a.txt' }], {
      cite: true,
      instructions: 'Be brief.',
    });
    expect(system.content).toContain('<cite i="2"/>');
    expect(system.content).toContain('Be brief.');
    expect(user.content).toBe('Sources:\n\n[0] a.txt\nBecause.\n\nQuestion: Why?');
    expect(answerMessages('Why?', [], { cite: false, instructions: null })[0].content).toContain('Do not cite');
  });

  it('reads the cited sources in order of first citation, ranges included, out-of-range ones dropped', () => {
    expect(citedSources('a <cite i="2"/> b <cite i="0-1"/> c <cite i="2"/> d <cite i="9"/>', 3)).toEqual([2, 0, 1]);
  });
});

describe('the feedback planner', () => {
  const ranking = [
    'Lactic fermentation of cabbage in brine makes sauerkraut; the brine must cover the cabbage.',
    'Fermentation in brine: salt draws water from the cabbage and lactic bacteria do the rest.',
    'Strawberry jam is boiled with sugar.',
  ].map((text, i) => ({ id: `r${i + 1}`, text, filename: `f${i}.txt`, score: 1 - i * 0.2, round: 1 }));
  const view = (issued: string[]): PlannerView => ({
    question: 'sour cabbage',
    instructions: null,
    round: 1,
    maxRounds: 3,
    queriesPerRound: 4,
    issued,
    ranking,
    topK: 3,
  });

  it('finds the terms that characterise the top results, not the question’s own', () => {
    const terms = feedbackTerms('sour cabbage', ranking.slice(0, 2), 4);
    expect(terms).toContain('brine');
    expect(terms).toContain('fermentation');
    expect(terms).not.toContain('cabbage');
  });

  it('proposes new queries from them, never one already issued, and finishes when none is left', async () => {
    const planner = new FeedbackPlanner();
    const first = await planner.next(view(['sour cabbage']));
    expect(first.finish).toBeNull();
    expect(first.queries.length).toBeGreaterThan(1);
    expect(first.queries.length).toBeLessThanOrEqual(4);
    expect(first.queries[0]).toMatch(/^sour cabbage \S+ \S+ \S+$/);
    const again = await planner.next(view(['sour cabbage', ...first.queries]));
    expect(again.queries.some((q) => first.queries.includes(q))).toBe(false);
    const empty = await planner.next({ ...view(['x']), ranking: [] });
    expect(empty.finish).not.toBeNull();
    expect(empty.usage.totalTokens).toBe(0);
  });
});
