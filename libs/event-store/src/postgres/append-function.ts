/** A row of `append_to_streams`: the events appended, the stored events of known ids, or one conflict row with the current revision. */
export interface AppendRow {
  /** Which append of the statement (1-based) the row answers. */
  append_no: number;
  outcome: 'known' | 'appended' | 'conflict';
  event_id: string;
  stream_id: string;
  stream_revision: string | null;
  transaction_id: string | null;
  global_position: string | null;
}

/**
 * Appends to several streams as one function, so that a group of appends is one statement, one round
 * trip and one transaction. The appends run in order, each on its own: the known-ids check (an
 * idempotent retry answers the stored events), the stream's row locked, the expected revision checked
 * (a conflict answers the current revision and stores nothing of that append), the stream's revision
 * and its events written. Subscribers in other processes are notified once when anything was stored.
 * The events of all appends come in flat arrays (their data and metadata as one JSON array each, sent as
 * a `jsonb` parameter in binary form, `jsonbParameter`, which neither side escapes element by element);
 * `p_counts` says how many belong to each append.
 */
export function appendToStreamsFunction(schema: string): string {
  const events = `"${schema}".events`;
  const streams = `"${schema}".streams`;
  return `CREATE OR REPLACE FUNCTION "${schema}".append_to_streams(
      p_streams text[], p_expected text[], p_counts int[], p_ids uuid[], p_types text[], p_data jsonb, p_metadata jsonb,
      p_channel text)
    RETURNS TABLE (append_no int, outcome text, event_id uuid, stream_id text, stream_revision bigint, transaction_id xid8,
      global_position bigint)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      cur bigint;
      first bigint;
      lo int := 1;
      hi int;
      stored boolean := false;
    BEGIN
      FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
        hi := lo + p_counts[i] - 1;
        RETURN QUERY SELECT i, 'known'::text, e.event_id, e.stream_id, e.stream_revision, e.transaction_id, e.global_position
          FROM ${events} e WHERE e.event_id = ANY(p_ids[lo:hi]);
        IF NOT FOUND THEN
          SELECT s.revision INTO cur FROM ${streams} s WHERE s.stream_id = p_streams[i] FOR UPDATE;
          IF NOT (p_expected[i] = 'any' OR (p_expected[i] = 'no_stream' AND cur IS NULL)
              OR (p_expected[i] = 'stream_exists' AND cur IS NOT NULL) OR (cur IS NOT NULL AND p_expected[i] = cur::text)) THEN
            RETURN QUERY SELECT i, 'conflict'::text, NULL::uuid, NULL::text, cur, NULL::xid8, NULL::bigint;
          ELSE
            first := COALESCE(cur + 1, 0);
            IF cur IS NULL THEN
              INSERT INTO ${streams} (stream_id, revision) VALUES (p_streams[i], first + p_counts[i] - 1);
            ELSE
              UPDATE ${streams} SET revision = first + p_counts[i] - 1 WHERE ${streams}.stream_id = p_streams[i];
            END IF;
            RETURN QUERY WITH inserted AS (
              INSERT INTO ${events} (event_id, stream_id, stream_revision, type, data, metadata)
              SELECT t.id, p_streams[i], first + t.n - 1, t.type, p_data -> (lo + t.n::int - 2),
                  p_metadata -> (lo + t.n::int - 2)
                FROM unnest(p_ids[lo:hi], p_types[lo:hi]) WITH ORDINALITY AS t(id, type, n)
               ORDER BY t.n
              RETURNING ${events}.event_id, ${events}.stream_id, ${events}.stream_revision, ${events}.transaction_id,
                ${events}.global_position)
              SELECT i, 'appended'::text, ins.event_id, ins.stream_id, ins.stream_revision, ins.transaction_id,
                ins.global_position FROM inserted ins;
            stored := true;
          END IF;
        END IF;
        lo := hi + 1;
      END LOOP;
      IF stored AND p_channel IS NOT NULL THEN PERFORM pg_notify(p_channel, ''); END IF;
    END
    $fn$`;
}
