import { createWriteStream, mkdtempSync, promises as fs, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { randomBytes } from 'crypto';
import { spawn } from 'child_process';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { freePort, memoryOf, waitForServer } from './support';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_FILE_MIB ?? 256) * MiB;
const BIG = Number(process.env.BENCH_BIG_MIB ?? 1024) * MiB;
const PART = 16 * MiB;

/** `total` bytes of non-repeating-ish data, generated as it is read. */
function generated(total: number): Readable {
  const block = randomBytes(MiB);
  let left = total;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const n = Math.min(block.length, left);
      left -= n;
      this.push(block.subarray(0, n));
    },
  });
}

function multipartBody(total: number, filename: string): { body: Readable; type: string; length: number } {
  const boundary = `----larderbench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* all() {
    yield head;
    for await (const c of generated(total)) yield c as Buffer;
    yield tail;
  }
  return {
    body: Readable.from(all()),
    type: `multipart/form-data; boundary=${boundary}`,
    length: head.length + total + tail.length,
  };
}

const mbps = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);

export async function filesBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-files-'));
  const key = `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, ['-r', join(root, 'tools/paths.js'), join(root, 'dist/apps/api/src/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      LARDER_DATA_DIR: join(dir, 'data'),
      LARDER_ROOT_KEY: key,
      LARDER_LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${key}` };
  try {
    await waitForServer(base, 30);

    // Baseline: the same bytes straight to disk, fsynced.
    let t = performance.now();
    const raw = join(dir, 'raw.bin');
    await pipeline(generated(SIZE), createWriteStream(raw));
    const fh = await fs.open(raw, 'r');
    await fh.sync();
    await fh.close();
    const diskMBps = mbps(SIZE, performance.now() - t);
    await fs.rm(raw);

    // Single-request upload.
    const m = multipartBody(SIZE, 'single.bin');
    t = performance.now();
    let res = await fetch(`${base}/v1/files`, {
      method: 'POST',
      headers: { ...auth, 'content-type': m.type, 'content-length': String(m.length) },
      body: Readable.toWeb(m.body) as never,
      duplex: 'half',
    } as never);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    const single = mbps(SIZE, performance.now() - t);
    const file = (await res.json()) as { id: string };

    // Download.
    t = performance.now();
    res = await fetch(`${base}/v1/files/${file.id}/content`, { headers: auth });
    let got = 0;
    for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) got += c.length;
    const download = mbps(got, performance.now() - t);

    // Multipart through signed part URLs, 4 parts at a time.
    const partCount = Math.ceil(SIZE / PART);
    t = performance.now();
    res = await fetch(`${base}/v1/files/uploads`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        filename: 'multi.bin',
        file_size: SIZE,
        mime_type: 'application/octet-stream',
        part_count: partCount,
      }),
    });
    const up = (await res.json()) as { id: string; part_urls: Array<{ part_number: number; url: string }> };
    const etags: Array<{ part_number: number; etag: string }> = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (;;) {
          const i = next++;
          if (i >= partCount) return;
          const len = Math.min(PART, SIZE - i * PART);
          const r = await fetch(up.part_urls[i].url, {
            method: 'PUT',
            headers: { 'content-length': String(len) },
            body: Readable.toWeb(generated(len)) as never,
            duplex: 'half',
          } as never);
          etags.push({ part_number: i + 1, etag: r.headers.get('etag')! });
        }
      }),
    );
    res = await fetch(`${base}/v1/files/uploads/${up.id}/complete`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ parts: etags.sort((a, b) => a.part_number - b.part_number) }),
    });
    if (!res.ok) throw new Error(`complete: ${res.status} ${await res.text()}`);
    const multipart = mbps(SIZE, performance.now() - t);

    // Peak RSS of the server while it receives a 1 GiB upload.
    const before = memoryOf(child.pid!).rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(child.pid!).rss)), 20);
    const big = multipartBody(BIG, 'big.bin');
    t = performance.now();
    res = await fetch(`${base}/v1/files`, {
      method: 'POST',
      headers: { ...auth, 'content-type': big.type, 'content-length': String(big.length) },
      body: Readable.toWeb(big.body) as never,
      duplex: 'half',
    } as never);
    const bigMBps = mbps(BIG, performance.now() - t);
    clearInterval(sampler);
    if (res.status !== 201) throw new Error(`big upload: ${res.status}`);

    const f = (n: number) => n.toFixed(0).padStart(8);
    process.stdout.write(`\nFiles benchmark (${SIZE / MiB} MiB file; embedded default, local disk blobs)\n\n`);
    process.stdout.write(`${'operation'.padEnd(34)}${'MB/s'.padStart(8)}${'× disk'.padStart(8)}\n`);
    process.stdout.write(`${'raw disk write (fsync), baseline'.padEnd(34)}${f(diskMBps)}${'1.00'.padStart(8)}\n`);
    for (const [name, v] of [
      ['single-request upload', single],
      ['multipart upload (16 MiB parts, 4×)', multipart],
      ['download', download],
    ] as const) {
      process.stdout.write(`${name.padEnd(34)}${f(v)}${(v / diskMBps).toFixed(2).padStart(8)}\n`);
    }
    process.stdout.write(
      `\nserver RSS while uploading ${BIG / MiB} MiB in one request: ${(before / MiB).toFixed(0)} MiB before, ${(peak / MiB).toFixed(0)} MiB peak (+${((peak - before) / MiB).toFixed(0)} MiB), ${bigMBps.toFixed(0)} MB/s\n\n`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}
