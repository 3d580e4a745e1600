import { FileModel, Ledger, Op } from './ledger';
import { Observed } from './observe';

/** One thing the end state contradicts. */
export interface Finding {
  category: 'lost' | 'duplicated' | 'refused-with-trace' | 'conflict-accepted' | 'unrecorded' | 'unbilled';
  what: string;
  /** The request that explains it (the last that concerned it) and the acknowledged write it contradicts. */
  cause: string;
  /** A kill came during that request or within 3 s after its answer. */
  nearKill: boolean;
  /** The file's own requests, in order. */
  history?: string[];
  /** The attaches of its worker's other files to the external ids it held, in order. */
  idHistory?: string[];
}

export interface SoakCounts {
  writesAcked: number;
  writesRefused: number;
  lost: number;
  duplicated: number;
  refusedWithTrace: number;
  conflictsAccepted: number;
  searchesAnswered: number;
  qaAnswered: number;
  unrecorded: number;
  unbilled: number;
  kills: number;
  unknownOutcomes: number;
  /** Requests the client could not send: no server was listening (a restart). */
  notSent: number;
}

const WRITES = new Set<Op['kind']>(['upload', 'attach', 'delete-store-file', 'delete-file']);
const answer = (op: Op) =>
  op.outcome === 'ok'
    ? '2xx'
    : op.outcome === 'refused'
      ? String(op.status)
      : op.outcome === 'unknown'
        ? 'no answer'
        : 'not sent';
const describe = (op: Op) => `${op.label} (worker ${op.worker}, #${op.seq}) → ${answer(op)}`;

/** Compares what every answered request implies with what the server holds at the end. */
export function verify(ledger: Ledger, seen: Observed, kills: number[]): { counts: SoakCounts; findings: Finding[] } {
  const findings: Finding[] = [];
  const nearKill = (op: Op) => kills.some((k) => k >= op.start && k <= op.end + 3000);
  const line = (t: Op) =>
    `${(t.start / 1000).toFixed(1)}-${(t.end / 1000).toFixed(1)} s ${describe(t)}${t.externalId ? ` [${t.file} → ${t.externalId}]` : ''}`;
  /** The file's own requests, and the attaches of its worker's other files to the external ids it held. */
  const historyOf = (f: FileModel) => ({
    history: f.touches.map(line),
    idHistory: ledger.ops
      .filter(
        (op) => !f.touches.includes(op) && op.worker === f.worker && op.externalId && f.idsHeld.includes(op.externalId),
      )
      .map(line),
  });
  const add = (category: Finding['category'], what: string, op: Op, decided?: Op | null, file?: FileModel) =>
    findings.push({
      category,
      what,
      cause: describe(op) + (decided && decided !== op ? `; decided by ${describe(decided)}` : ''),
      nearKill: nearKill(op) || (!!decided && nearKill(decided)),
      ...(file ? historyOf(file) : {}),
    });
  /**
   * What most likely undid a file's acknowledged state: its first request refused after the write
   * that decided it, else the first acknowledged attach of another file to an id it held, else its last request.
   */
  const suspectOf = (f: FileModel, decided: Op | null) => {
    const since = decided?.seq ?? -1;
    return (
      f.touches.find((t) => t.seq > since && t.outcome === 'refused') ??
      ledger.ops.find(
        (op) =>
          op.seq > since &&
          op.worker === f.worker &&
          op.outcome === 'ok' &&
          op.file !== f.filename &&
          op.externalId &&
          f.idsHeld.includes(op.externalId),
      ) ??
      f.touches[f.touches.length - 1]
    );
  };

  const inStore = new Map<string, number>();
  for (const f of seen.storeFiles) inStore.set(f.id, (inStore.get(f.id) ?? 0) + 1);
  const orgById = new Set(seen.orgFiles.map((f) => f.id));
  const orgByName = new Map<string, number>();
  for (const f of seen.orgFiles) orgByName.set(f.filename, (orgByName.get(f.filename) ?? 0) + 1);

  // duplicates: a store file listed twice, an upload that made two files, an external id on two store files
  for (const [id, n] of inStore)
    if (n > 1)
      findings.push({ category: 'duplicated', what: `store file ${id} listed ${n} times`, cause: '', nearKill: false });
  const byExternalId = new Map<string, string[]>();
  for (const f of seen.storeFiles)
    if (f.externalId) byExternalId.set(f.externalId, [...(byExternalId.get(f.externalId) ?? []), f.id]);
  for (const [x, ids] of byExternalId)
    if (ids.length > 1)
      findings.push({
        category: 'duplicated',
        what: `external_id ${x} on ${ids.length} store files (${ids.join(', ')})`,
        cause: '',
        nearKill: false,
      });

  for (const f of ledger.files) {
    if ((orgByName.get(f.filename) ?? 0) > 1)
      add('duplicated', `${f.filename}: ${orgByName.get(f.filename)} files of one upload`, f.orgBy);
    // the organization's file
    const there = f.fileId ? orgById.has(f.fileId) : orgByName.has(f.filename);
    if (f.org === 'yes' && !there) add('lost', `file ${f.filename} (${f.fileId})`, suspectOf(f, f.orgBy), f.orgBy, f);
    if (f.org === 'no' && there)
      add(
        f.orgBy.outcome === 'ok' ? 'lost' : 'refused-with-trace',
        `file ${f.filename} (${f.fileId ?? 'id never answered'}) exists`,
        f.orgBy,
        null,
        f,
      );
    if (!f.fileId || f.shared) continue;
    // the store file (a file on a shared external id is judged with its race below)
    const listed = inStore.has(f.fileId);
    if (f.store === 'yes' && (!listed || !seen.gettable.has(f.fileId)))
      add(
        'lost',
        `store file ${f.filename} (${f.fileId})${listed ? ' listed but not gettable' : ''}`,
        suspectOf(f, f.storeBy),
        f.storeBy,
        f,
      );
    if (f.store === 'no' && listed && f.storeBy) {
      // a superseded file still there shows as a duplicated external id above
      if (
        f.storeBy.outcome === 'ok' &&
        f.storeBy.kind === 'attach' &&
        f.externalId &&
        (byExternalId.get(f.externalId)?.length ?? 0) > 1
      )
        continue;
      add(
        f.storeBy.outcome === 'ok' ? 'lost' : 'refused-with-trace',
        `store file ${f.filename} (${f.fileId}) is present`,
        f.touches[f.touches.length - 1],
        f.storeBy,
        f,
      );
    }
  }

  // shared external ids: an acknowledged attach may be gone only if another overwrite:true attach could have come after it
  for (const [x, attaches] of ledger.sharedAttaches) {
    for (const a of attaches) {
      const id = a.file.fileId!;
      if (a.op.outcome === 'refused' || a.op.outcome === 'down') {
        if (inStore.has(id))
          add('refused-with-trace', `store file ${a.file.filename} (${id}) on ${x} is present`, a.op, null, a.file);
        continue;
      }
      if (a.op.outcome !== 'ok' || inStore.has(id)) continue;
      const replacedBy = attaches.some(
        (b) => b !== a && b.overwrite && (b.op.outcome === 'ok' || b.op.outcome === 'unknown') && b.op.end > a.op.start,
      );
      if (!replacedBy)
        add(
          'lost',
          `store file ${a.file.filename} (${id}) on ${x}: no overwrite:true attach of ${x} came after it`,
          a.op,
          null,
          a.file,
        );
    }
  }

  // a file a refused attach removed (read right after the refusal)
  for (const g of ledger.goneAfterRefusal)
    add(
      'lost',
      `store file ${g.file.filename} (${g.file.fileId}) gone right after a refused attach`,
      g.op,
      g.decidedBy,
      g.file,
    );

  // overwrite:false answered 2xx over an id another file held: two files held it at once, or the holder was already gone
  // (when a refused request had touched the holder before, the holder was lost then: counted once, as lost)
  const lostNames = new Set(findings.filter((x) => x.category === 'lost').map((x) => x.what));
  for (const c of ledger.conflictsAccepted) {
    const refused = c.holder.touches.find(
      (t) => t.seq > (c.holderDecidedBy?.seq ?? -1) && t.seq < c.op.seq && t.outcome === 'refused',
    );
    if (refused) {
      const what = `store file ${c.holder.filename} (${c.holder.fileId}), gone by the time ${c.file.filename} took ${c.op.externalId} with overwrite:false`;
      if (![...lostNames].some((n) => n.startsWith(`store file ${c.holder.filename} `)))
        add('lost', what, refused, c.holderDecidedBy, c.holder);
      lostNames.add(what);
      continue;
    }
    add(
      'conflict-accepted',
      `${c.file.filename} took ${c.op.externalId} from ${c.holder.filename} (${c.holder.fileId})`,
      c.op,
      null,
      c.holder,
    );
  }

  // searches and questions answered 2xx: each in the activity, and billing counts what the activity lists
  const recorded = { search: new Set(seen.activity.search), qa: new Set(seen.activity.qa) };
  for (const q of ledger.queries)
    if (q.op.outcome === 'ok' && !recorded[q.kind].has(q.query))
      add('unrecorded', `${q.kind} "${q.query}" answered but not in /v1/events`, q.op);
  for (const kind of ['search', 'qa'] as const) {
    const short = seen.activity[kind].length - seen.billed[kind];
    if (short > 0)
      findings.push({
        category: 'unbilled',
        what: `${short} of ${seen.activity[kind].length} ${kind} events not billed (billed ${seen.billed[kind]})`,
        cause: '',
        nearKill: false,
      });
  }

  const of = (c: Finding['category']) => findings.filter((x) => x.category === c).length;
  const counts: SoakCounts = {
    writesAcked: ledger.count((op) => WRITES.has(op.kind) && op.outcome === 'ok'),
    writesRefused: ledger.count((op) => WRITES.has(op.kind) && op.outcome === 'refused'),
    lost: of('lost'),
    duplicated: of('duplicated'),
    refusedWithTrace: of('refused-with-trace'),
    conflictsAccepted: of('conflict-accepted'),
    searchesAnswered: ledger.count((op) => op.kind === 'search' && op.outcome === 'ok'),
    qaAnswered: ledger.count((op) => op.kind === 'qa' && op.outcome === 'ok'),
    unrecorded: of('unrecorded'),
    unbilled: (['search', 'qa'] as const).reduce(
      (n, k) => n + Math.max(0, seen.activity[k].length - seen.billed[k]),
      0,
    ),
    kills: kills.length,
    unknownOutcomes: ledger.count((op) => op.outcome === 'unknown'),
    notSent: ledger.count((op) => op.outcome === 'down'),
  };
  return { counts, findings };
}
