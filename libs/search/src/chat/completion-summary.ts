import type { LlmMessage } from '@larder/ai';

/** Characters a completion's activity event keeps of its title, last user message, answer and each model turn's text. */
export const SUMMARY_CHARS = { title: 80, userMessage: 2000, answer: 4000, turn: 500 } as const;

const cut = (text: string | null | undefined, n: number): string | null =>
  typeof text === 'string' ? (text.length <= n ? text : text.slice(0, n)) : null;

/**
 * What a completion's activity event says of its conversation, each part bounded: its title (the
 * conversation's first user message, history included, cut to 80 characters), the last user
 * message, and the answer.
 */
export function completionSummary(
  messages: LlmMessage[],
  answer: string | null,
): { title: string | null; userMessage: string | null; answer: string | null } {
  const users = messages.filter((m) => m.role === 'user' && typeof m.content === 'string');
  return {
    title: cut(users[0]?.content?.trim(), SUMMARY_CHARS.title),
    userMessage: cut(users[users.length - 1]?.content, SUMMARY_CHARS.userMessage),
    answer: cut(answer, SUMMARY_CHARS.answer),
  };
}

/** A model turn's text as its generation record keeps it. */
export const turnContent = (content: string | null | undefined): string | null => cut(content, SUMMARY_CHARS.turn);
