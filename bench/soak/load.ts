import Mixedbread, { toFile } from '@mixedbread/sdk';
import { after, FileModel, Ledger, Op } from './ledger';

/** External ids each worker keeps to itself, and ids every worker attaches to (the cross-worker race). */
const PRIVATE_IDS = 4;
const SHARED_IDS = 3;

const WORDS = (
  'apricot barley cabbage damson elderflower fennel gooseberry horseradish juniper kohlrabi leek marrow nettle ' +
  'onion parsnip quince rhubarb sorrel turnip walnut brine crock cellar larder pantry jar lid vinegar salt sugar ' +
  'smoke cure dry ferment pickle preserve boil seal label shelf cool dark winter autumn harvest orchard garden'
).split(' ');

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)];
const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

/** A small text document: a few sentences of the pantry vocabulary. */
function documentText(tag: string): Buffer {
  const sentences = Array.from(
    { length: 4 + Math.floor(Math.random() * 6) },
    () => `${words(6 + Math.floor(Math.random() * 8))}.`,
  );
  return Buffer.from(`# ${tag}\n\n${sentences.join(' ')}\n`);
}

export interface LoadContext {
  client: Mixedbread;
  storeId: string;
  ledger: Ledger;
  /** Uploads larger than this are refused by the server (LARDER_MAX_FILE_BYTES). */
  maxFileBytes: number;
  /** The load stops starting requests once this returns true. */
  done: () => boolean;
}

/**
 * One client of the soak: a sequence of requests, each chosen at random, with what it expects of its
 * own files updated from every outcome (a later acknowledged write of its own may remove an earlier
 * file; one of another worker never does, except through the shared external ids).
 */
export class SoakWorker {
  private readonly files: FileModel[] = [];
  private n = 0;

  constructor(
    private readonly w: number,
    private readonly ctx: LoadContext,
  ) {}

  /** The requests a worker makes, with their weights (per 100). */
  private readonly mix: Array<[weight: number, request: () => Promise<Op | null>]> = [
    [25, () => this.uploadAndAttach()],
    [5, () => this.burst()],
    [8, () => this.upload()],
    [8, () => this.attachUploaded()],
    [8, () => this.reattach()],
    [8, () => this.deleteStoreFile()],
    [3, () => this.deleteFile()],
    [2, () => this.uploadOversize()],
    [20, () => this.query('search')],
    [13, () => this.query('qa')],
  ];

  async run(): Promise<void> {
    while (!this.ctx.done()) {
      let r = Math.random() * 100;
      const [, request] = this.mix.find(([weight]) => (r -= weight) < 0) ?? this.mix[this.mix.length - 1];
      const op = await request();
      // no server listening (a restart): wait a little rather than spin
      if (op?.outcome === 'down') await new Promise((r) => setTimeout(r, 250));
    }
  }

  private track<T>(kind: Op['kind'], label: string, call: () => Promise<T>) {
    return this.ctx.ledger.track(this.w, kind, label, call);
  }

  private get store() {
    return this.ctx.client.stores.files;
  }

  /** The worker's files that are attached (per its own acknowledged writes) and still its to touch. */
  private attached(pred: (f: FileModel) => boolean = () => true): FileModel[] {
    return this.files.filter((f) => f.store === 'yes' && !f.shared && !f.retired && f.fileId && pred(f));
  }

  private async upload(bytes?: Buffer): Promise<Op> {
    const filename = `soak-w${this.w}-${this.n++}.md`;
    const body = bytes ?? documentText(filename);
    const { op, value } = await this.track('upload', bytes ? 'upload over LARDER_MAX_FILE_BYTES' : 'upload', async () =>
      this.ctx.client.files.create({ file: await toFile(body, filename, { type: 'text/markdown' }) }),
    );
    const file: FileModel = {
      worker: this.w,
      filename,
      fileId: value?.id ?? null,
      org: op.outcome === 'ok' ? 'yes' : op.outcome === 'unknown' ? 'maybe' : 'no',
      orgBy: op,
      store: 'no',
      storeBy: null,
      externalId: null,
      shared: false,
      retired: op.outcome !== 'ok',
      touches: [op],
      idsHeld: [],
    };
    this.files.push(file);
    this.ctx.ledger.files.push(file);
    return op;
  }

  private uploadOversize(): Promise<Op> {
    return this.upload(Buffer.alloc(this.ctx.maxFileBytes + 1024, 'a'));
  }

  /** Attaches `f` (uploaded) with an external id or none; the expectations of `f` and of what it supersedes follow the outcome. */
  private async attach(
    f: FileModel,
    externalId: string | null,
    overwrite: boolean,
    shared: boolean,
    label: string,
  ): Promise<Op> {
    const { op } = await this.track('attach', label, () =>
      this.store.create(this.ctx.storeId, {
        file_id: f.fileId!,
        ...(externalId ? { external_id: externalId, overwrite } : {}),
      }),
    );
    f.touches.push(op);
    op.file = f.filename;
    if (externalId) op.externalId = externalId;
    if (op.outcome === 'refused' || op.outcome === 'down') {
      if (f.store === 'no') f.storeBy = op;
      return op;
    }
    const previous = f.externalId;
    f.store = after(op, f.store, 'yes');
    f.storeBy = op;
    if (op.outcome === 'unknown') {
      f.retired = true;
      if (previous !== externalId) f.store = 'maybe';
    }
    f.externalId = externalId;
    if (externalId && !f.idsHeld.includes(externalId)) f.idsHeld.push(externalId);
    if (shared) {
      f.shared = true;
      const list = this.ctx.ledger.sharedAttaches.get(externalId!) ?? [];
      list.push({ op, file: f, overwrite });
      this.ctx.ledger.sharedAttaches.set(externalId!, list);
      return op;
    }
    const holders = this.files.filter(
      (h) => h !== f && !h.shared && !h.retired && h.externalId === externalId && h.store === 'yes',
    );
    if (externalId && !overwrite && op.outcome === 'ok')
      for (const holder of holders)
        this.ctx.ledger.conflictsAccepted.push({ op, file: f, holder, holderDecidedBy: holder.storeBy });
    // an overwrite of a private id removes the worker's other file that held it
    if (externalId && overwrite) {
      for (const h of this.files) {
        if (h === f || h.shared || h.retired || h.externalId !== externalId || h.store === 'no') continue;
        h.store = after(op, h.store, 'no');
        h.storeBy = op;
        h.touches.push(op);
      }
    }
    return op;
  }

  private async uploadAndAttach(): Promise<Op> {
    const up = await this.upload();
    if (up.outcome !== 'ok') return up;
    const f = this.files[this.files.length - 1];
    const overwrite = Math.random() < 0.5;
    const r = Math.random();
    if (r < 0.34) return this.attach(f, null, true, false, 'upload + attach');
    if (r < 0.67)
      return this.attach(
        f,
        `w${this.w}-e${Math.floor(Math.random() * PRIVATE_IDS)}`,
        overwrite,
        false,
        `upload + attach private external_id overwrite:${overwrite}`,
      );
    return this.attach(
      f,
      `shared-${Math.floor(Math.random() * SHARED_IDS)}`,
      overwrite,
      true,
      `upload + attach shared external_id overwrite:${overwrite}`,
    );
  }

  /** Three new files attached at once to one new external id with overwrite:false: one may take it, the others must be refused. */
  private async burst(): Promise<Op | null> {
    const externalId = `burst-w${this.w}-${this.n++}`;
    const files: FileModel[] = [];
    for (let i = 0; i < 3; i++)
      if ((await this.upload()).outcome === 'ok') files.push(this.files[this.files.length - 1]);
    const ops = await Promise.all(
      files.map((f) =>
        this.attach(f, externalId, false, true, 'concurrent attaches of a new external_id overwrite:false'),
      ),
    );
    return ops[0] ?? null;
  }

  /** Attaches a file uploaded earlier and never attached: without an external id, or a private one with overwrite. */
  private async attachUploaded(): Promise<Op | null> {
    const f = this.files.find((x) => x.org === 'yes' && x.store === 'no' && !x.retired && x.storeBy === null);
    if (!f) return this.upload();
    if (Math.random() < 0.5) return this.attach(f, null, true, false, 'attach an uploaded file');
    return this.attach(
      f,
      `w${this.w}-e${Math.floor(Math.random() * PRIVATE_IDS)}`,
      true,
      false,
      'attach an uploaded file, private external_id overwrite:true',
    );
  }

  /**
   * Attaches an attached file again: without an external id with the same options (an upsert that
   * changes nothing), or with another private id that another of its files holds and overwrite:false
   * (refused: the file stays as it was).
   */
  private async reattach(): Promise<Op | null> {
    const held = this.attached((f) => f.externalId !== null);
    const f = held.length ? pick(held) : null;
    const holder = f && this.attached((h) => h !== f && h.externalId !== null && h.externalId !== f.externalId)[0];
    if (f && holder && Math.random() < 0.7) {
      const op = await this.attach(
        f,
        holder.externalId,
        false,
        false,
        'attach again with a held private external_id overwrite:false',
      );
      if (op.outcome === 'refused') await this.stillThere(f, op);
      return op;
    }
    const plain = this.attached((x) => x.externalId === null);
    if (!plain.length) return null;
    return this.attach(pick(plain), null, true, false, 'attach again with the same options');
  }

  /** A refused request changes nothing: reads the store file right after one; gone, it is recorded and left alone from then on. */
  private async stillThere(f: FileModel, refused: Op): Promise<void> {
    const found = await this.store.retrieve(f.fileId!, { store_identifier: this.ctx.storeId }).then(
      () => true,
      (err: { status?: number }) => (err.status === 404 ? false : null), // no answer: unknown
    );
    if (found !== false) return;
    this.ctx.ledger.goneAfterRefusal.push({ op: refused, file: f, decidedBy: f.storeBy });
    f.store = 'maybe';
    f.retired = true;
  }

  private async deleteStoreFile(): Promise<Op | null> {
    const all = this.attached();
    if (!all.length) return null;
    const f = pick(all);
    const { op } = await this.track('delete-store-file', 'delete store file', () =>
      this.store.delete(f.fileId!, { store_identifier: this.ctx.storeId }),
    );
    f.touches.push(op);
    if (op.outcome === 'refused' || op.outcome === 'down') return op;
    f.store = after(op, f.store, 'no');
    f.storeBy = op;
    f.retired = true; // gone (or maybe): never touched again
    return op;
  }

  /** Deletes an attached file of the organization: the store file goes with it. */
  private async deleteFile(): Promise<Op | null> {
    const all = this.attached((x) => x.externalId === null);
    if (!all.length) return null;
    const f = pick(all);
    const { op } = await this.track('delete-file', 'delete file', () => this.ctx.client.files.delete(f.fileId!));
    f.touches.push(op);
    if (op.outcome === 'refused' || op.outcome === 'down') return op;
    f.store = after(op, f.store, 'no');
    f.org = after(op, f.org, 'no');
    f.storeBy = op;
    f.orgBy = op;
    f.retired = true;
    return op;
  }

  /** A search or a question with a query no other request asks, to find its activity event by. */
  private async query(kind: 'search' | 'qa'): Promise<Op> {
    const query = `soak ${kind} w${this.w} n${this.n++} ${words(3)}`;
    const { op } = await this.track(
      kind,
      kind === 'search' ? 'search' : 'question answering',
      async (): Promise<unknown> =>
        kind === 'search'
          ? this.ctx.client.stores.search({ query, store_identifiers: [this.ctx.storeId], top_k: 5 })
          : this.ctx.client.stores.questionAnswering({ query, store_identifiers: [this.ctx.storeId], top_k: 3 }),
    );
    this.ctx.ledger.queries.push({ kind, query, op });
    return op;
  }
}
