import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { optionValueNames } from '../../src/cli/option-values.js';
import { usesColors } from '../../src/cli/provd-cli.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { runCli, runClis } from '../support/cli.js';

const commands = [
  'daemon',
  'health',
  'ingest',
  'runs',
  'record',
  'watch',
  'ui',
  'policy check',
  'ai call',
  'ai mcp',
  'ai tools',
  'verify',
  'timeline',
  'explain',
  'risks',
  'responses',
  'summary',
  'signals',
  'events',
  'hooks install',
  'hooks uninstall',
  'hooks print',
];
const sample = join(packageRoot, 'test', 'fixtures', 'native-ebpf-events.jsonl');
// an ANSI escape sequence (CSI), as clipanion's colours write them
const ansiEscape = new RegExp(String.fromCharCode(27) + '\\[');

/** A loopback URL nothing listens on right now. */
async function closedUrl(): Promise<string> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return `http://127.0.0.1:${port}`;
}

describe('provd usage and option checks', function () {
  it('prints help without colour codes when stdout is a pipe, naming every option value', async function () {
    const calls = [['--help'], ...commands.map((command) => [...command.split(' '), '--help'])];
    const runs = await runClis(calls.map((args) => [args]));
    for (const [index, args] of calls.entries()) {
      const { code, stdout } = runs[index]!;
      assert.equal(code, 0, args.join(' '));
      assert.doesNotMatch(stdout, ansiEscape, args.join(' '));
      assert.doesNotMatch(stdout, /#\d/, `${args.join(' ')} shows a value as #N`);
      assert.doesNotMatch(stdout, / VALUE\b/, `${args.join(' ')} has an option value with no name`);
    }
    const { stdout } = await runCli(['daemon', '--help']);
    assert.match(stdout, /--listen HOST:PORT {2,}HOST:PORT to listen on/);
    assert.match(stdout, /--max-body-bytes BYTES /);
    const overview = (await runCli(['--help'])).stdout;
    assert.match(overview, /provd ingest \[--url URL\] \[--format FORMAT\]/);
    assert.match(overview, /provd runs \[--url URL\] \[--limit COUNT\] \[--cursor CURSOR\] \[--json\]/);
    assert.match(overview, /provd ai call \[--url URL\] \[--input JSON\|-\] \[--json\] <TOOL>/);
    assert.match(overview, /provd ai tools \[--provider PROVIDER\] \[--json\]/);
  });

  it('names the value of every option it registers', async function () {
    const help = (
      await Promise.all(commands.map((command) => runCli([...command.split(' '), '--help'])))
    ).map((run) => run.stdout);
    const options = new Set(help.join('\n').match(/--[a-z][a-z-]+(?= [A-Z])/g));
    assert.ok(options.size > 10, [...options].join(' '));
    for (const option of options) assert.ok(Object.hasOwn(optionValueNames, option), option);
  });

  it('colours only a terminal, and never under NO_COLOR', function () {
    assert.equal(usesColors({ isTTY: true }, {}), true);
    assert.equal(usesColors({ isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(usesColors({ isTTY: true }, { TERM: 'dumb' }), false);
    assert.equal(usesColors({ isTTY: false }, {}), false);
    assert.equal(usesColors({}, {}), false);
  });

  it('writes usage errors to a pipe without colour codes, and exits 2', async function () {
    const { code, stderr } = await runCli(['daemon', '--bogus']);
    assert.equal(code, 2);
    assert.match(stderr, /Unknown Syntax Error/);
    assert.doesNotMatch(stderr, ansiEscape);
  });

  it('names the option and what it expects for a negative or malformed number, and exits 2', async function () {
    const cases: [string[], RegExp][] = [
      [['daemon', '--max-body-bytes', '-5'], /--max-body-bytes must be an integer >= 1, got "-5"/],
      [['daemon', '--max-body-bytes=-5'], /--max-body-bytes must be an integer >= 1, got "-5"/],
      [['daemon', '--spool-max-events', '-1'], /--spool-max-events must be an integer >= 1, got "-1"/],
      [['daemon', '--max-ingest-queue-bytes', '1.5'], /--max-ingest-queue-bytes must be an integer >= 1/],
      [['daemon', '--spool-ttl', '-2m'], /--spool-ttl must be a positive duration/],
      [['ingest', '--chunk-bytes', '-5', sample], /--chunk-bytes must be an integer >= 1, got "-5"/],
      [['ingest', '--concurrency', '-.5', sample], /--concurrency must be an integer 1\.\.64, got "-\.5"/],
      [['runs', '--limit', '-5'], /--limit must be an integer 1\.\.1000, got "-5"/],
      [['runs', '--limit', '1e2'], /--limit must be an integer 1\.\.1000, got "1e2"/],
    ];
    const runs = await runClis(cases.map(([args]) => [args, { env: { PROVD_URL: 'http://127.0.0.1:9' } }]));
    for (const [index, [args, message]] of cases.entries()) {
      const { code, stdout, stderr } = runs[index]!;
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.match(stderr, /^provd: PROVD_ERR_CONFIG_INVALID: /, args.join(' '));
      assert.match(stderr, message, args.join(' '));
      assert.equal(stdout, '', args.join(' '));
    }
  });

  it('refuses a malformed --url or PROVD_URL the same way in every command', async function () {
    const bad: [string, RegExp][] = [
      ['nope', /it is not a URL, got "nope"/],
      ['ftp://127.0.0.1:8574', /ftp: is not http: or https:/],
      ['http://user:pw@127.0.0.1:8574', /credentials \(use PROVD_AUTH_TOKEN\)/],
      ['http://127.0.0.1:8574/?x=1', /a query or fragment/],
    ];
    const commandUrls = ['health', 'ingest', 'runs'].flatMap((command) =>
      bad.map(([url, reason]) => ({ command, rest: command === 'ingest' ? [sample] : [], url, reason })),
    );
    const runs = await runClis(
      commandUrls.flatMap(({ command, rest, url }) => [
        [[command, '--url', url, ...rest]],
        [[command, ...rest], { env: { PROVD_URL: url } }],
      ]),
    );
    for (const [index, { command, url, reason }] of commandUrls.entries()) {
      const [flag, env] = [runs[2 * index]!, runs[2 * index + 1]!];
      assert.equal(flag.code, 2, `${command} --url ${url}: ${flag.stderr}`);
      assert.match(
        flag.stderr,
        /^provd: PROVD_ERR_CONFIG_INVALID: --url must be the daemon's http\(s\) base URL/,
      );
      assert.match(flag.stderr, reason, `${command} --url ${url}`);
      assert.equal(env.code, 2, `${command} PROVD_URL=${url}: ${env.stderr}`);
      assert.match(env.stderr, /^provd: PROVD_ERR_CONFIG_INVALID: PROVD_URL must be/);
    }
  });

  it('says PROVD_ERR_CLI_UNREACHABLE in every command for a well-formed URL where no daemon answers', async function () {
    const url = await closedUrl();
    const expected: Record<string, number> = { health: 2, runs: 2, ingest: 1 };
    const rests: Record<string, string[]> = { ingest: [sample], explain: ['--run', 'run-1'] };
    const unreachable = [
      'health',
      'runs',
      'ingest',
      'verify',
      'timeline',
      'explain',
      'risks',
      'summary',
      'signals',
      'events',
    ];
    const runs = await runClis(
      unreachable.map((command) => [
        [command, '--url', url + '/', ...(rests[command] ?? (command in expected ? [] : ['run-1']))],
      ]),
    );
    for (const [index, command] of unreachable.entries()) {
      const { code, stderr } = runs[index]!;
      assert.equal(code, expected[command] ?? 2, `${command}: ${stderr}`);
      assert.match(stderr, new RegExp(`PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at ${url}: `));
    }
  });
});
