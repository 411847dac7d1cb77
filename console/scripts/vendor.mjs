// Copies the browser builds of the console's pinned npm packages from node_modules into the jar's
// conclave-console/vendor/ directory (the Maven build passes it as the only argument). Only files
// the page loads are copied, with each package's licence. Nothing is transformed.
//
//   node scripts/vendor.mjs target/classes/conclave-console/vendor
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');
const target = process.argv[2] ? resolve(process.argv[2]) : join(root, 'target/classes/conclave-console/vendor');

// package -> [source file in the package, destination under vendor/]
const FILES = {
  preact: [
    ['dist/preact.mjs', 'preact/preact.mjs'],
    ['hooks/dist/hooks.mjs', 'preact/hooks.mjs'],
    ['LICENSE', 'preact/LICENSE'],
  ],
  htm: [
    ['dist/htm.mjs', 'htm/htm.mjs'],
    ['LICENSE', 'htm/LICENSE'],
  ],
  'sockjs-client': [
    ['dist/sockjs.min.js', 'sockjs/sockjs.min.js'],
    ['LICENSE', 'sockjs/LICENSE'],
  ],
  // the official Vert.x event-bus client; a classic script that sets window.EventBus and needs
  // window.SockJS (licence: EPL 1.0 / Apache 2.0, stated in the file's header)
  '@vertx/eventbus-bridge-client.js': [
    ['vertx-eventbus.js', 'vertx-eventbus/vertx-eventbus.js'],
  ],
};

const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies;
rmSync(target, { recursive: true, force: true });
for (const [pkg, files] of Object.entries(FILES)) {
  const dir = join(modules, pkg);
  if (!existsSync(dir)) {
    throw new Error(`${pkg} is not installed in ${modules}: run 'npm ci' first`);
  }
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  if (version !== pinned[pkg]) {
    throw new Error(`${pkg} ${version} is installed but package.json pins ${pinned[pkg]}: run 'npm ci'`);
  }
  for (const [from, to] of files) {
    const dest = join(target, to);
    mkdirSync(dirname(dest), { recursive: true });
    copyFileSync(join(dir, from), dest);
  }
  console.log(`vendored ${pkg}@${version}: ${files.map(([, to]) => to).join(', ')}`);
}
