// Lets a child process of a spec run the TypeScript sources directly (node -r ./ts-register.js file.ts), as
// jest does: @swc/core transpiles each .ts file on load, and @larder/* resolves to libs/*/src.
const Module = require('module');
const path = require('path');
const fs = require('fs');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '..', '..', '..', '..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const m = /^@larder\/([^/]+)(?:\/(.*))?$/.exec(request);
  const mapped = m
    ? m[1] === 'projections'
      ? path.join(root, 'projections', m[2] ?? '')
      : path.join(root, 'libs', m[1], 'src', m[2] ?? '')
    : request;
  return resolve.call(this, mapped, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
