// A V8 code cache for the CommonJS modules a process loads (Node 20 has no module.enableCompileCache):
// each module is compiled with the bytecode V8 produced for it in an earlier run, so a start skips most
// of the parsing and compiling of its thousands of modules. The cache lives beside the compiled code
// (dist/.v8-cache, or LARDER_COMPILE_CACHE_DIR; "off" turns it off), keyed by each file's path and a
// hash of its source: a changed file is compiled afresh, and V8 itself rejects data from another
// V8 version or flags. It is written once the process has run a while (and at exit), never in the way
// of a start; a directory that cannot be written just means no cache.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const Module = require('module');
const path = require('path');
const vm = require('vm');
const { setTimeout } = require('timers');
const { isMainThread } = require('worker_threads');

const setting = process.env.LARDER_COMPILE_CACHE_DIR;
const off =
  setting === 'off' ||
  setting === '0' ||
  setting === 'false' ||
  typeof vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER !== 'symbol';

// (the main thread's alone: worker threads would write the same files with their own few modules)
if (!off && isMainThread) install(setting || path.join(__dirname, '..', 'dist', '.v8-cache'));

function install(dir) {
  const tag = `${process.version}-${process.arch}-${crypto.createHash('sha1').update(process.execArgv.join(' ')).digest('hex').slice(0, 8)}`;
  const indexFile = path.join(dir, `${tag}.json`);
  const blobFile = path.join(dir, `${tag}.bin`);
  /** filename → [source hash, offset, length] in the blob read at start */
  let index = {};
  let blob = null;
  try {
    index = JSON.parse(fs.readFileSync(indexFile, 'utf8'));
    blob = fs.readFileSync(blobFile);
  } catch {
    index = {};
    blob = null;
  }
  /** filename → { hash, script } compiled without usable cached data: their data is written later */
  const fresh = new Map();
  /** filename → [hash, Buffer] accepted from the cache (kept as they are) */
  const kept = new Map();

  const hashOf = (content) => crypto.createHash('sha1').update(content).digest('base64');
  const original = Module.prototype._compile;

  Module.prototype._compile = function (content, filename, format) {
    if (format === 'module' || !filename.endsWith('.js')) return original.call(this, content, filename, format);
    const hash = hashOf(content);
    const entry = index[filename];
    const cachedData = blob && entry && entry[0] === hash ? blob.subarray(entry[1], entry[1] + entry[2]) : undefined;
    let script;
    try {
      script = new vm.Script(Module.wrap(content), {
        filename,
        cachedData,
        importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
      });
    } catch {
      // ES module syntax in a .js file, or anything else Node's own loader handles differently
      return original.call(this, content, filename, format);
    }
    if (cachedData && !script.cachedDataRejected) kept.set(filename, [hash, cachedData]);
    else fresh.set(filename, { hash, script });
    const mod = this;
    const require = (id) => mod.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    require.main = process.mainModule;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    const wrapper = script.runInThisContext({ displayErrors: true });
    return Reflect.apply(wrapper, mod.exports, [mod.exports, require, mod, filename, path.dirname(filename)]);
  };

  let written = false;
  const write = () => {
    if (!fresh.size) return;
    try {
      const parts = [];
      const next = {};
      let offset = 0;
      const add = (filename, hash, data) => {
        next[filename] = [hash, offset, data.length];
        parts.push(data);
        offset += data.length;
      };
      for (const [filename, [hash, data]] of kept) add(filename, hash, data);
      for (const [filename, { hash, script }] of fresh) add(filename, hash, script.createCachedData());
      fs.mkdirSync(dir, { recursive: true });
      const tmp = `.${process.pid}`;
      fs.writeFileSync(blobFile + tmp, Buffer.concat(parts));
      fs.writeFileSync(indexFile + tmp, JSON.stringify(next));
      // the blob first: an index never points into a blob it was not written with... except between
      // these two renames, where a reader sees the new blob with the old index: the source hashes and
      // V8's own checks of each entry reject what does not fit, and a reader then compiles afresh
      fs.renameSync(blobFile + tmp, blobFile);
      fs.renameSync(indexFile + tmp, indexFile);
      written = true;
    } catch {
      // a read-only tree: no cache
    }
  };
  // after the start (the modules it loads and the functions it runs are compiled by then), and at exit
  setTimeout(write, Number(process.env.LARDER_COMPILE_CACHE_DELAY_MS ?? 10_000)).unref();
  process.once('exit', () => {
    if (!written) write();
  });
}
