import assert from 'node:assert/strict';
import { PathGlob } from '../../src/security/policy/path-glob.js';

/**
 * The meaning of a glob, written as the RegExp provd compiled globs to before (README, policy
 * rules): the automaton must answer as it does on every glob and path, only without backtracking.
 */
function oracle(glob: string): RegExp {
  let pattern = '';
  for (let at = 0; at < glob.length; at++) {
    if (glob.startsWith('**/', at)) {
      pattern += '(?:[^/]*/)*';
      at += 2;
    } else if (glob.startsWith('**', at)) {
      pattern += '.*';
      at += 1;
    } else if (glob[at] === '*') pattern += '[^/]*';
    else if (glob[at] === '?') pattern += '[^/]';
    else pattern += glob[at]!.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

/** A small deterministic generator, so a failure names a glob and path that reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('policy path globs', function () {
  it('match exactly what their meaning says, on 100,000 generated globs and paths', function () {
    const next = random(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const globParts = ['a', 'b', '/', '.', '*', '**', '**/', '?', '\u00e9', '\ud83d\ude00', '[', '('];
    const pathParts = ['a', 'b', '/', '.', '\u00e9', '\ud83d\ude00', '[', '('];
    let matched = 0;
    for (let round = 0; round < 100_000; round++) {
      const glob = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(globParts)).join('');
      const path = Array.from({ length: Math.floor(next() * 7) }, () => pick(pathParts)).join('');
      const expected = oracle(glob).test(path);
      assert.equal(
        new PathGlob(glob).test(path),
        expected,
        `${JSON.stringify(glob)} on ${JSON.stringify(path)}`,
      );
      if (expected) matched++;
    }
    assert.ok(matched > 5_000, `the generated cases match often enough to mean something (${matched})`);
  });

  it('matches the short cases a wildcard with nothing around it decides', function () {
    const cases: [string, string, boolean][] = [
      ['*/', '/', true],
      ['*/', 'a/', true],
      ['*/', 'a/b', false],
      ['**/', '', true],
      ['**/', 'a/b/', true],
      ['**/', 'a/b', false],
      ['/x/**', '/x/', true],
      ['/x/**', '/x', false],
      ['?', '/', false],
      ['a*b', 'ab', true],
      ['a*b', 'a/b', false],
      ['abc', 'abc', true],
      ['abc', 'abcd', false],
    ];
    for (const [glob, path, expected] of cases) {
      assert.equal(new PathGlob(glob).test(path), expected, `${glob} on ${path}`);
      assert.equal(oracle(glob).test(path), expected, `the meaning of ${glob} on ${path}`);
    }
  });

  it('answers the same compiled glob many times in a row, matches and misses interleaved', function () {
    const glob = new PathGlob('/home/**/.ssh/*');
    for (let round = 0; round < 1000; round++) {
      assert.equal(glob.test(`/home/u${round}/.ssh/id_rsa`), true);
      assert.equal(glob.test(`/home/u${round}/ssh/id_rsa`), false);
      assert.equal(glob.test('/home/.ssh/config'), true);
      assert.equal(glob.test('/home/a/b/c/.ssh/x/y'), false);
    }
  });

  it('answers globs that made the RegExp backtrack for seconds, on paths of 200,000 characters', function () {
    const hostile = new PathGlob('**/*.*.*.bak');
    const long = 'a.'.repeat(100_000);
    assert.equal(hostile.test(long), false);
    assert.equal(hostile.test(`${'a'.repeat(200_000)}.x.bak`), false, 'a dot too few');
    assert.equal(hostile.test(`/x/${long}.bak`), true);
    assert.equal(new PathGlob('/**/**/**/**/x').test(`${'/a'.repeat(100_000)}/y`), false);
    assert.equal(new PathGlob('*a*a*a*a*a*b').test('a'.repeat(200_000)), false);
  });

  it('refuses an empty glob, naming it', function () {
    assert.throws(() => new PathGlob(''), /an empty path glob matches nothing/);
  });
});
