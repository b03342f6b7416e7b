/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, `server --url`) against the
 * daemon's POST /mcp. The suite needs Node 22+, provd Node 20: .ci/install-conformance puts Node 24
 * (its npm platform package) and the suite under .cache/conformance/, and this test runs the suite
 * with that Node as a client of a daemon on Node 20. Every scenario expected to fail is listed with
 * its reason in mcp-conformance-baseline.yaml; the suite's own baseline check fails on a scenario
 * failing that is not listed, and on one listed that now passes. Skips, saying why, when the suite
 * is not installed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { packageRoot } from '../../src/shared/package-root.js';
import { useSharedDaemon } from '../support/daemon.js';
import { useTempDir } from '../support/temp-dir.js';

const run = promisify(execFile);

// keep in step with .ci/install-conformance
const cache = join(packageRoot, '.cache', 'conformance');
const node = join(
  cache,
  `node-linux-${arch()}@24.22.3`,
  'node_modules',
  `node-linux-${arch()}`,
  'bin',
  'node',
);
const suite = join(
  cache,
  '@modelcontextprotocol+conformance@0.1.16',
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
const baselineFile = join(packageRoot, 'test', 'ai', 'mcp-conformance-baseline.yaml');

/** One expected failure: the scenario and why provd fails it. */
interface ExpectedFailure {
  scenario: string;
  reason: string;
}

function readBaseline(): ExpectedFailure[] {
  const { server } = parse(readFileSync(baselineFile, 'utf8')) as { server: ExpectedFailure[] };
  return server;
}

describe('POST /mcp under the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16)', function () {
  const shared = useSharedDaemon();
  const temp = useTempDir('provd-mcp-conformance-');

  before(function () {
    const missing = [node, suite].find((file) => !existsSync(file));
    if (missing === undefined) return;
    process.stderr.write(`      skipped: ${missing} is not installed; run: bash .ci/install-conformance\n`);
    this.skip();
  });

  it('gives every expected failure of the baseline a reason, once', function () {
    const baseline = readBaseline();
    const names = baseline.map(({ scenario }) => scenario);
    assert.deepEqual(names, [...new Set(names)]);
    for (const { scenario, reason } of baseline)
      assert.ok(typeof reason === 'string' && reason.length > 20, `${scenario} has no reason`);
  });

  it('fails only the scenarios the baseline lists, and passes every other active server scenario', async function () {
    this.timeout(180_000);
    const baseline = readBaseline();
    // the suite reads a list of names; the reasons stay in the baseline file
    const expected = join(temp.path, 'expected-failures.yaml');
    writeFileSync(expected, `server:\n${baseline.map(({ scenario }) => `  - ${scenario}\n`).join('')}`);
    const out = join(temp.path, 'results');
    const args = [
      suite,
      'server',
      '--url',
      `${shared.daemon.url}/mcp`,
      '--expected-failures',
      expected,
      '-o',
      out,
    ];
    let stdout: string;
    try {
      ({ stdout } = await run(node, args, { timeout: 150_000, maxBuffer: 16 * 1024 * 1024 }));
    } catch (error) {
      const { stdout: said = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      assert.fail(`the suite's baseline check failed:\n${said.slice(-4000)}\n${stderr.slice(-2000)}`);
    }
    assert.match(stdout, /Baseline check passed: all failures are expected/);
    // each listed scenario ran (a name the suite no longer has would pass unnoticed)
    const ran = readdirSync(out).map((dir) =>
      dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, ''),
    );
    for (const { scenario } of baseline) assert.ok(ran.includes(scenario), `${scenario} did not run`);
    for (const passing of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])
      assert.ok(ran.includes(passing) && !baseline.some(({ scenario }) => scenario === passing), passing);
  });
});
