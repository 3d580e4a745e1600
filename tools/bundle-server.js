// Bundles the compiled API server (dist/apps/api/src/create-app.js and everything it loads from dist/
// and node_modules) into one file, dist/apps/api/src/create-app.bundle.js, which main.js loads instead
// of the modules one by one: a start then skips resolving, stat-ing and reading ~2,400 files (about
// 0.7 s of CPU on the 2-core reference machine). Run by `npm run build` after tsc; esbuild bundles the
// JavaScript tsc emitted, so the decorator metadata tsc wrote is kept as it is.
//
// What stays outside the bundle, loaded from its own file at run time:
// - the modules main.js itself loads before the bundle (config, the database thread, the IVF prefetch,
//   …): the bundle requires those very files, so there is one copy of each in the process;
// - native modules, packages that find their own files by __dirname/__filename (WebAssembly, data
//   files), optional peers Nest probes for, and the heavy packages loaded only on demand (parsers, cloud
//   SDKs, other adapters' clients): see EXTERNAL. A package of the bundle that reads __dirname or
//   __filename and is not listed fails the build, so a new dependency cannot silently break a start;
// - worker threads load their entry modules by path from dist/ as before: in the bundled copies of
//   dist's modules, __dirname, __filename and require.resolve keep meaning the module's own file.
//
// main.js uses the bundle only while every file it was made of (dist/'s modules, and node_modules through
// its .package-lock.json) has the size and modification time create-app.bundle.json recorded, so a
// tsc-only rebuild or an npm install never runs stale bundled code; LARDER_SERVER_BUNDLE=off turns it off.
'use strict';
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const SRC = path.join(DIST, 'apps/api/src');
const ENTRY = path.join(SRC, 'create-app.js');
const OUT = path.join(SRC, 'create-app.bundle.js');
const MANIFEST = path.join(SRC, 'create-app.bundle.json');
const MAIN = path.join(SRC, 'main.js');

const EXTERNAL = [
  // native, WebAssembly or data files found by path
  'better-sqlite3',
  'pg-native',
  '@electric-sql/*',
  'onnxruntime-node',
  'onnxruntime-web',
  'usearch',
  'swagger-ui-dist',
  'app-root-path',
  '@energetic-ai/*',
  '@tesseract.js-data/*',
  // the database driver: TypeORM loads it by a computed name, so it must be the same copy as ours
  'pg',
  // optional peers Nest and others probe for
  '@nestjs/microservices',
  '@nestjs/websockets',
  '@swc/core',
  'class-transformer/storage',
  // loaded on demand only (adapters a configuration may not use, parsers of some file types, tracing)
  '@aws-sdk/*',
  '@smithy/*',
  '@elastic/elasticsearch',
  '@eventstore/db-client',
  'nats',
  'tesseract.js',
  '@huggingface/transformers',
  '@opentelemetry/otlp-transformer',
  '@opentelemetry/resources',
  '@opentelemetry/core',
  '@opentelemetry/sdk-trace',
  'yaml',
  'htmlparser2',
  'image-size',
  'onnx-proto',
  'unpdf',
  'mammoth',
  'iconv-lite',
];
const externalPackage = (request) =>
  EXTERNAL.some((e) =>
    e.endsWith('/*') ? request.startsWith(e.slice(0, -1)) : request === e || request.startsWith(e + '/'),
  );

const { compilerOptions } = require(path.join(ROOT, 'tsconfig.json'));
/** @larder/* → its directory in dist/ (tsconfig.json's paths, as tools/paths.js resolves them) */
const aliases = Object.entries(compilerOptions.paths)
  .filter(([k]) => !k.endsWith('/*'))
  .map(([k, [v]]) => [k, path.join(DIST, v)]);
function resolveAlias(request) {
  for (const [k, dir] of aliases) {
    if (request !== k && !request.startsWith(k + '/')) continue;
    const p = dir + request.slice(k.length);
    for (const c of [p + '.js', path.join(p, 'index.js')]) if (fs.existsSync(c)) return c;
  }
  return null;
}

const packageOf = (file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file.split(path.sep).join('/'))?.[1] ?? null;

/** The dist modules main.js loads itself (its static requires, all the way down; create-app excluded). */
async function mainModules() {
  const result = await esbuild.build({
    entryPoints: [MAIN],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'main-modules',
        setup(b) {
          b.onResolve({ filter: /^@larder\// }, (args) => {
            const p = resolveAlias(args.path);
            return p ? { path: p } : { errors: [{ text: `cannot resolve ${args.path}` }] };
          });
          b.onResolve({ filter: /^\.\/create-app(\.bundle)?$/ }, (args) => ({ path: args.path, external: true }));
          // only dist's own modules matter here
          b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  return new Set(Object.keys(result.metafile.inputs).map((f) => path.resolve(ROOT, f)));
}

async function main() {
  // no bundle at all until this build has finished (main.js then loads the modules one by one)
  fs.rmSync(MANIFEST, { force: true });
  const shared = await mainModules();
  const outDir = path.dirname(OUT);
  const unsafe = new Set();
  const plugin = {
    name: 'larder-server',
    setup(b) {
      b.onResolve({ filter: /^@larder\// }, (args) => {
        const p = resolveAlias(args.path);
        if (!p) return { errors: [{ text: `cannot resolve ${args.path}` }] };
        return shared.has(p) ? { path: './' + path.relative(outDir, p), external: true } : { path: p };
      });
      b.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData === 'inner' || !args.importer.startsWith(DIST + path.sep)) return null;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: 'inner',
        });
        if (r.errors.length) return r;
        return shared.has(r.path) ? { path: './' + path.relative(outDir, r.path), external: true } : r;
      });
      b.onResolve({ filter: /^[^./]/ }, (args) =>
        externalPackage(args.path) ? { path: args.path, external: true } : null,
      );
      b.onLoad({ filter: /\.(c?js)$/ }, async (args) => {
        let text = await fs.promises.readFile(args.path, 'utf8');
        const uses = /\b__dirname\b|\b__filename\b|\brequire\.resolve\b/.test(text);
        if (!args.path.startsWith(DIST + path.sep)) {
          if (/\b__dirname\b|\b__filename\b/.test(text))
            unsafe.add(`${packageOf(args.path) ?? args.path} (${path.relative(ROOT, args.path)})`);
          return { contents: text, loader: 'js' };
        }
        if (uses) {
          // the module's own file, directory and resolution, as if it were loaded from dist/ by itself
          const rel = JSON.stringify(path.relative(outDir, args.path).split(path.sep).join('/'));
          text = text
            .replace(/\brequire\.resolve\(/g, '__larderRequire.resolve(')
            .replace(/\b__dirname\b/g, '__larderDirname')
            .replace(/\b__filename\b/g, '__larderFilename');
          text =
            `var __larderFilename = require("path").join(__larderBundleDir, ${rel}), __larderDirname = require("path").dirname(__larderFilename), ` +
            `__larderRequire = require("module").createRequire(__larderFilename);\n${text}`;
        }
        return { contents: text, loader: 'js' };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // class and function names as tsc wrote them (Nest's logs and error messages name classes)
    keepNames: true,
    // the mainFields Node itself uses: the CommonJS builds that the modules load today
    mainFields: ['main'],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: 'const __larderBundleDir = __dirname;' },
    plugins: [plugin],
    metafile: true,
  });
  // BUNDLE_METAFILE=path: esbuild's account of what went into the bundle, for looking into its size
  if (process.env.BUNDLE_METAFILE) fs.writeFileSync(process.env.BUNDLE_METAFILE, JSON.stringify(result.metafile));
  if (unsafe.size) {
    fs.rmSync(OUT, { force: true });
    throw new Error(
      `these bundled packages read __dirname or __filename; add them to EXTERNAL in tools/bundle-server.js:\n  ${[...unsafe].join('\n  ')}`,
    );
  }
  if (result.errors.length) process.exit(1);
  // What the bundle was made of: main.js runs it only while every one of these files is as it was
  // (size and modification time), so that a later tsc build or npm install is never hidden by it.
  const inputs = Object.keys(result.metafile.inputs)
    .map((f) => path.resolve(ROOT, f))
    .filter((f) => f.startsWith(DIST + path.sep));
  const lock = path.join(ROOT, 'node_modules', '.package-lock.json');
  if (fs.existsSync(lock)) inputs.push(lock);
  const files = [...new Set([...inputs, ...shared])].sort().map((f) => {
    const st = fs.statSync(f);
    return [path.relative(outDir, f).split(path.sep).join('/'), st.size, st.mtimeMs];
  });
  fs.writeFileSync(MANIFEST, JSON.stringify({ bundle: path.basename(OUT), files }));
}

main().catch((err) => {
  fs.rmSync(OUT, { force: true });
  fs.rmSync(MANIFEST, { force: true });
  console.error(err.message ?? err);
  process.exit(1);
});
