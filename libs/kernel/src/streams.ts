/**
 * Stream names are `<category>-<id>` with a dash-free snake_case category. This is the only helper
 * that builds or parses them.
 */
export function streamName(category: string, id: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(category)) throw new Error(`invalid stream category: ${category}`);
  if (!id) throw new Error('stream id must not be empty');
  return `${category}-${id}`;
}

export function streamCategory(stream: string): string {
  const i = stream.indexOf('-');
  return i < 0 ? stream : stream.slice(0, i);
}

export function streamId(stream: string): string {
  const i = stream.indexOf('-');
  return i < 0 ? '' : stream.slice(i + 1);
}
