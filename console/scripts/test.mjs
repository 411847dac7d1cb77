// Runs the console's Node tests (test/*.test.mjs) with Node's built-in test runner; the Maven build
// calls it in the test phase. The files are listed here because `node --test test/` searches the
// directory only up to Node.js 20 (from 21 on, an argument is a file pattern and a directory fails
// with MODULE_NOT_FOUND), and the exec plugin expands no globs.
//
//   node scripts/test.mjs
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = readdirSync(join(root, 'test')).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join('test', f));
if (!files.length) {
  console.error('no test/*.test.mjs found');
  process.exit(1);
}
const run = spawnSync(process.execPath, ['--test', ...files], { cwd: root, stdio: 'inherit' });
process.exit(run.status === null ? 1 : run.status);
