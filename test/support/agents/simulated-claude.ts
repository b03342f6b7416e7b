/**
 * The simulated Claude Code session of the tool-call tie tests (test/fixtures/agents/claude-simulated.mjs):
 * run in a cgroup v2 of its own from its first instruction, as provd watch starts an agent, with
 * provd's hook command to the daemon's hook socket, as provd hooks install writes it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hookClientPath } from '../../../src/agents/hook-command.js';
import { cgroup2MountPoint, ownCgroupPath } from '../../../src/provenance/record/cgroup-root.js';
import { sensorUnavailable } from '../../../src/sensor/host-support.js';
import type { RunningDaemon } from '../daemon.js';
import { request } from '../http.js';
import type { StoredEvent } from '../sensor-events.js';
import { shellQuote } from './tool-calls.js';

const agentScript = fileURLToPath(
  new URL('../../../../test/fixtures/agents/claude-simulated.mjs', import.meta.url),
);

/** A cgroup v2 directory `name` under the test's cgroup, for the simulated agent; undefined when none can be made. */
function agentCgroup(name: string): string | undefined {
  const mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'));
  const own = ownCgroupPath(readFileSync('/proc/self/cgroup', 'utf8'));
  if (mount === undefined || own === undefined) return undefined;
  const path = join(mount, own, name);
  try {
    mkdirSync(path, { recursive: true });
    return path;
  } catch {
    return undefined;
  }
}

/**
 * Registers mocha hooks (call it inside a describe, before its daemon) that make the agent's cgroup
 * `name` before the block and remove it after; the block is skipped without a sensor or a cgroup.
 */
export function useAgentCgroup(name: string): { readonly path: string } {
  let cgroup: string | undefined;
  before(function () {
    const why =
      sensorUnavailable() ??
      ((cgroup = agentCgroup(name)) === undefined ? 'no writable cgroup v2' : undefined);
    if (why === undefined) return;
    process.stderr.write(`      skipped: ${why}\n`);
    this.skip();
  });
  after(function () {
    if (cgroup !== undefined) rmdirSync(cgroup);
  });
  return {
    get path() {
      if (cgroup === undefined) throw new Error('the agent cgroup is not made: use it inside a test or hook');
      return cgroup;
    },
  };
}

/** Binds `cgroup` to `run` as its `toolCallId` over POST /v1/telemetry/bind, as provd watch binds its agent's. */
export async function bindCgroup(
  daemon: RunningDaemon,
  headers: Record<string, string>,
  run: string,
  toolCallId: string,
  cgroup: string,
): Promise<void> {
  const bound = await request(daemon.url, '/v1/telemetry/bind', {
    method: 'POST',
    headers,
    body: JSON.stringify({
      run_id: run,
      tool_call_id: toolCallId,
      cgroup_id: statSync(cgroup, { bigint: true }).ino.toString(),
    }),
  });
  assert.equal(bound.status, 200, JSON.stringify(bound.body));
}

/** provd's hook command for Claude Code to the daemon's hook socket, as `provd hooks install` writes it. */
export const hookCommand = (dataDir: string): string =>
  `${shellQuote(hookClientPath())} claude --socket ${shellQuote(join(dataDir, 'hooks.sock'))}`;

/** Runs the simulated agent of `session` inside `cgroup` from its first instruction; resolves with its output lines. */
export function runSimulatedAgent(
  cgroup: string,
  cwd: string,
  dataDir: string,
  session: string,
  plan: unknown,
): Promise<Record<string, unknown>[]> {
  const planFile = join(cwd, `plan-${session}.json`);
  writeFileSync(planFile, JSON.stringify(plan));
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'echo $$ > "$1/cgroup.procs" && exec "$2" "$3" "$4"',
        'sh',
        cgroup,
        process.execPath,
        agentScript,
        planFile,
      ],
      {
        cwd,
        env: { PATH: process.env['PATH'] ?? '', HOOK_COMMAND: hookCommand(dataDir), SESSION: session },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`the simulated agent exited ${code}: ${err}`));
      else
        resolve(
          out
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
    });
  });
}

/** An execve event's command line, its words joined by spaces. */
export const argvOf = (event: StoredEvent): string =>
  ((event.attrs['argv'] as string[] | undefined) ?? []).join(' ');
