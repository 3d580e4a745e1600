// A V8 code cache for the modules loaded from here on (tools/compile-cache.js).
require('./compile-cache');
// Resolves the @larder/* aliases of tsconfig.json against the compiled tree in dist/.
const path = require('path');
const tsConfigPaths = require('tsconfig-paths');
const { compilerOptions } = require('../tsconfig.json');
tsConfigPaths.register({ baseUrl: path.join(__dirname, '..', 'dist'), paths: compilerOptions.paths });
