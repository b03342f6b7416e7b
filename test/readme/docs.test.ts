// What the README and docs/ promise a reader: a README of about 300 lines at most, links that lead
// somewhere, fences that close, and curl examples that work on a daemon with a token.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

const pages = ['README.md', ...readdirSync(join(packageRoot, 'docs')).map((name) => join('docs', name))];
const text = (page: string): string => readFileSync(join(packageRoot, page), 'utf8');

/** Every shell command of a page's ```sh blocks, continuation lines joined. */
function shellCommands(page: string): string[] {
  const commands: string[] = [];
  for (const block of text(page).matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm))
    commands.push(...block[1]!.replace(/\\\n\s*/g, ' ').split('\n'));
  return commands;
}

describe('README and docs/', function () {
  it('keep the README short: at most about 300 lines, with the two quick-start commands first', function () {
    const readme = text('README.md');
    assert.ok(readme.split('\n').length <= 300, `${readme.split('\n').length} lines`);
    const first = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    assert.deepEqual(
      first
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/\s+#/)[0]!.trim()),
      ['npm start', 'npm test'],
    );
  });

  it('link only to files that exist', function () {
    for (const page of pages) {
      for (const [, target] of text(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = join(packageRoot, dirname(page), target!.split('#')[0]!);
        assert.ok(existsSync(path), `${page} links to ${target}`);
      }
    }
  });

  it('close every code fence, and use no four-backtick fence', function () {
    for (const page of pages) {
      const fences = text(page)
        .split('\n')
        .filter((line) => /^\s*```/.test(line));
      assert.equal(fences.length % 2, 0, `${page}: an unclosed fence`);
      assert.ok(!fences.some((line) => line.trim().startsWith('````')), `${page}: a four-backtick fence`);
    }
  });

  it('send the token in every curl example but those of the health endpoints', function () {
    for (const page of pages) {
      for (const command of shellCommands(page)) {
        if (!/^\s*curl\b/.test(command) || /\/v1\/(live|ready|health)\b/.test(command)) continue;
        assert.match(command, /Authorization: Bearer/, `${page}: ${command}`);
      }
    }
  });

  it('define every variable their examples use', function () {
    for (const page of pages)
      for (const command of shellCommands(page))
        assert.doesNotMatch(command, /\$URL\b/, `${page}: $URL is never defined (use $PROVD_URL)`);
  });
});
