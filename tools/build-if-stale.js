// `npm start` (and the worker, CLI and bench scripts) build only when the sources changed since the last
// build: the sources' signature (every source file's path, size and modification time, bench/results aside, and the lockfile's)
// is kept in dist/.build-stamp.json by `npm run build`; a start whose sources still have that signature
// skips the build (tsc, the server bundle and the console: ~10 s) and starts at once.
//   node tools/build-if-stale.js           build if stale
//   node tools/build-if-stale.js --stamp   record the current signature (the end of `npm run build`)
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp.json');
const TREES = ['apps', 'libs', 'projections', 'bench', 'tools'];
const FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'node_modules/.package-lock.json',
];

function signature() {
  const hash = crypto.createHash('sha256');
  const add = (rel) => {
    const st = fs.statSync(path.join(ROOT, rel), { throwIfNoEntry: false });
    if (st?.isFile()) hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`);
  };
  const walk = (rel) => {
    for (const e of fs
      .readdirSync(path.join(ROOT, rel), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${rel}/${e.name}`;
      // bench/results holds what the benches save: no source
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.') || child === 'bench/results')
        continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) add(child);
    }
  };
  for (const t of TREES) if (fs.existsSync(path.join(ROOT, t))) walk(t);
  for (const f of FILES) add(f);
  return hash.digest('hex');
}

if (process.argv.includes('--stamp')) {
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, JSON.stringify({ signature: signature(), at: new Date().toISOString() }));
  process.exit(0);
}
let stamped = null;
try {
  stamped = JSON.parse(fs.readFileSync(STAMP, 'utf8')).signature;
} catch {
  // never built here
}
if (stamped && stamped === signature()) process.exit(0);
const r = spawnSync('npm', ['run', 'build', '--silent'], {
  cwd: ROOT,
  stdio: 'inherit',
  shell: process.platform === 'win32',
});
process.exit(r.status ?? 1);
