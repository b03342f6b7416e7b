#!/usr/bin/env node
// `provd` as `npm link` puts it on the PATH: runs the compiled CLI in dist/. The link points here,
// not into dist/, because npm leaves out a link to a file that does not exist yet: linked before the
// first build, `provd` would be "command not found" for good. Before a build it says what to run.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  process.stderr.write(
    `provd: not built yet (no ${fileURLToPath(main)}): run \`npm run setup\` in ${root}\n`,
  );
  process.exitCode = 2;
}
