// Runs a worker thread's TypeScript module from the sources (tests run them without a build): the
// module named by the worker's last argument, and the .ts modules it loads, compiled with @swc/core.
'use strict';
const fs = require('fs');
const swc = require('@swc/core');

require.extensions['.ts'] = (m, filename) =>
  m._compile(swc.transformSync(fs.readFileSync(filename, 'utf8'), { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code, filename);
require(process.argv[process.argv.length - 1]);
