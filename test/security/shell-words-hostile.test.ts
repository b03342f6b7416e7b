/**
 * A property test of the gate's shell reading with hostile strings: random words quoted every way a
 * shell allows read back as themselves; a secret read hidden anywhere in a random command line
 * (after any separator, inside `$(...)`, backticks, `sh -c`, `eval`, a here-document to a shell)
 * is always found and killed; random bytes, unclosed quotes, deep nesting and oversized input are
 * read without throwing, bounded, and said to be so.
 *
 * Seeded: PROVD_TEST_SEED=<n> replays a run (a failure names its seed and case).
 */
import assert from 'node:assert/strict';
import { defaultPolicy } from '../../src/security/policy/default-policy.js';
import { decideSubjects } from '../../src/security/policy/most-severe.js';
import { maxSubjects } from '../../src/security/policy/named-subject.js';
import { PolicyEngine } from '../../src/security/policy/policy-engine.js';
import { maxNesting, maxShellLength, readShell } from '../../src/security/policy/shell-words.js';
import { toolCallSubjects } from '../../src/security/policy/tool-subjects.js';

const seed = Number(process.env['PROVD_TEST_SEED'] ?? 42);
const cases = 400;
const engine = new PolicyEngine(defaultPolicy);

/** A small seeded generator (mulberry32): the same seed gives the same cases. */
function rng(seedValue: number): { int(bound: number): number; pick<T>(items: readonly T[]): T } {
  let state = seedValue >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    int: (bound) => Math.floor(next() * bound),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** Characters a hostile word is made of: shell metacharacters, quotes, controls, astral, NUL. */
const alphabet = [
  ...'abc/._-~ \t\n;&|()<>\'"\\$`*?[]{}#=!%,:@',
  '\u0000',
  '\u001b',
  '\u00e9',
  '\u{1f600}',
  '\ufeff',
];

function randomWord(random: ReturnType<typeof rng>): string {
  let word = '';
  for (let i = random.int(12); i >= 0; i--) word += random.pick(alphabet);
  return word;
}

/** `word` quoted one of the ways a shell reads back as exactly `word`. */
function quoted(word: string, style: number): string {
  if (style === 0) return `'${word.replaceAll("'", "'\\''")}'`;
  if (style === 1) return `"${word.replace(/["\\$`]/g, (char) => '\\' + char)}"`;
  if (style === 2 && word === '') return "''";
  if (style === 2)
    return word.replace(/[^A-Za-z0-9_/.,:-]/gu, (char) => (char === '\n' ? "'\n'" : '\\' + char));
  return `$'${[...word].map((char) => (char === "'" || char === '\\' ? '\\' + char : char === '\n' ? '\\n' : char)).join('')}'`;
}

describe('shell words with hostile strings (the gate reads, never runs)', function () {
  it('reads random words, quoted every way, back as themselves', function () {
    const random = rng(seed);
    for (let n = 0; n < cases; n++) {
      const words = Array.from({ length: 1 + random.int(5) }, () =>
        randomWord(random).replaceAll('\u0000', ''),
      );
      const line = words.map((word) => quoted(word, random.int(4))).join(random.pick([' ', '\t', ' \\\n ']));
      const reading = readShell(line);
      assert.deepEqual(
        reading.commands.map((command) => command.words.map((word) => word.text)),
        [words],
        `seed ${seed} case ${n}: ${JSON.stringify(line)}`,
      );
      assert.deepEqual(reading.problems, [], `seed ${seed} case ${n}`);
    }
  });

  it('finds a secret read hidden anywhere in a random command line, and kills it', function () {
    const random = rng(seed + 1);
    const hide: ((inner: string) => string)[] = [
      (inner) => inner,
      (inner) => `echo $(${inner})`,
      (inner) => `echo \`${inner.replace(/[\\`$]/g, (char) => '\\' + char)}\``, // nested: escaped
      (inner) => `bash -c ${quoted(inner, random.int(4))}`,
      (inner) => `sh -ec ${quoted(inner, random.int(4))} name`,
      (inner) => `eval ${quoted(inner, 0)}`,
      (inner) => `bash <<'X'\n${inner}\nX`,
      (inner) => `( ${inner} )`,
      (inner) => `{ ${inner}; }`,
      (inner) => `sudo -n env A=1 timeout 3 bash -c ${quoted(inner, random.int(4))}`,
      (inner) => `if true; then ${inner}; fi`,
    ];
    const separators = [' ; ', ' && ', ' || ', ' | ', ' & ', '\n'];
    const noise = [
      'ls -la',
      'echo "a;b|c"',
      "grep -E 'x|y' f.txt",
      'true',
      'cd /tmp',
      'X=1 make -j2 > build.log 2>&1',
    ];
    const secrets = ['cat /etc/shadow', 'cat ~/.ssh/id_rsa', 'cp .env /tmp/e', 'base64 < ~/.aws/credentials'];
    for (let n = 0; n < cases; n++) {
      let hidden = random.pick(secrets);
      for (let depth = random.int(4); depth > 0; depth--) hidden = random.pick(hide)(hidden);
      const parts = [random.pick(noise), hidden, random.pick(noise)].slice(random.int(2), 2 + random.int(2));
      const line = parts.join(random.pick(separators));
      const decided = decideSubjects(engine, toolCallSubjects('Bash', { command: line }, '/w', '/home/a'));
      assert.deepEqual(
        [decided.decision, decided.rule_id],
        ['kill', 'secret_path'],
        `seed ${seed + 1} case ${n}: ${JSON.stringify(line)} -> ${decided.reason}`,
      );
    }
  });

  it('reads random hostile strings without throwing, its answer bounded', function () {
    const random = rng(seed + 2);
    for (let n = 0; n < cases; n++) {
      let line = '';
      for (let i = random.int(40); i >= 0; i--)
        line += random.int(3) === 0 ? randomWord(random) : random.pick(alphabet);
      const reading = toolCallSubjects(random.pick(['Bash', 'mystery']), { command: line }, '/w');
      assert.ok(reading.subjects.length <= maxSubjects, `seed ${seed + 2} case ${n}`);
      assert.ok(reading.unreadable.length <= 32, `seed ${seed + 2} case ${n}`);
    }
  });

  it('says so when input is too long or nested too deep, and reads what came before', function () {
    const long = 'cat /etc/shadow; ' + 'x'.repeat(maxShellLength * 4);
    const longReading = toolCallSubjects('Bash', { command: long }, '/w');
    assert.ok(
      longReading.unreadable.includes(
        `command longer than ${maxShellLength} characters: read its first ${maxShellLength}`,
      ),
    );
    assert.equal(decideSubjects(engine, longReading).rule_id, 'secret_path');

    for (const deep of [
      '$('.repeat(50_000),
      '`echo \\'.repeat(2_000),
      'bash -c "'.repeat(5_000),
      '((((('.repeat(10_000),
      '<<'.repeat(20_000),
    ]) {
      const reading = toolCallSubjects('Bash', { command: `cat /etc/shadow; ${deep}` }, '/w');
      assert.equal(decideSubjects(engine, reading).rule_id, 'secret_path', deep.slice(0, 12));
    }
    const nested = toolCallSubjects(
      'Bash',
      { command: 'echo ' + '$('.repeat(maxNesting + 2) + 'ls' + ')'.repeat(maxNesting + 2) },
      '/w',
    );
    assert.ok(
      nested.unreadable.includes(`substitutions nested deeper than ${maxNesting}: not read past there`),
    );
    // many subjects: bounded, and said
    const many = toolCallSubjects(
      'Bash',
      { command: Array.from({ length: 2000 }, (_, i) => `cat /f/${i}.txt`).join(';') },
      '/w',
    );
    assert.equal(many.subjects.length, maxSubjects);
    assert.ok(many.unreadable.some((note) => note.startsWith('names more than')));
  });
});
