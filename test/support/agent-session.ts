/**
 * An agent session stored the way a real one is: the captured Claude Code hook payloads
 * (test/fixtures/agents/hook-payloads.jsonl) posted in order to POST /v1/hooks/claude, with a
 * hostile prompt and tool input, one more PreToolUse the default policy denies, and, for the first
 * tool call, a ToolCallScope binding and native telemetry lines of its processes (the shell, cat)
 * that carry its id: an exec's loader and locale opens, and what the command did.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { request } from './http.js';
import { nativeLine } from './telemetry.js';

/** Markup and an attribute break-out in a prompt and a tool input: text, never markup. */
export const hostilePrompt = `make a greeting <script>document.title='pwned'</script> "onerror=alert(1)`;
export const hostileCommand = `echo hello > greeting.txt && cat greeting.txt # <img src=x "onerror=document.title='pwned'">`;

/** The tool call the kernel events belong to, and the one the policy denies. */
export const ranCall = 'toolu_fake_1_1795890999902';
export const deniedCall = 'toolu_denied_1';

/** The loader and locale opens among the lines below: folded by default. */
export const loaderLocaleOpens = [
  { pid: 5000, path: '/etc/ld.so.cache', flags: 'O_RDONLY|O_CLOEXEC' },
  { pid: 5000, path: '/lib/x86_64-linux-gnu/libc.so.6', flags: 'O_RDONLY|O_CLOEXEC' },
  { pid: 5000, path: '/usr/lib/locale/locale-archive', flags: 'O_RDONLY|O_CLOEXEC' },
  { pid: 5000, path: '/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache', flags: 'O_RDONLY' },
  { pid: 5001, path: '/lib/x86_64-linux-gnu/libc.so.6', flags: 524288 }, // O_RDONLY|O_CLOEXEC as a number
  { pid: 5001, path: '/usr/share/locale/locale.alias', flags: 'O_RDONLY' },
];

/** A shared object the policy of `deniedLibraryPolicy` denies opening: a loader path, judged, so never folded. */
export const deniedLibrary = '/usr/lib/x86_64-linux-gnu/libfoo.so.1';

/** A policy file (in a new temporary directory) whose one rule denies opening `deniedLibrary`. */
export function deniedLibraryPolicy(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'provd-loader-policy-')), 'policy.yaml');
  writeFileSync(
    file,
    `rules:\n  - id: no-libfoo\n    decision: deny\n    match:\n      event_types: [file_open]\n      paths: ['${deniedLibrary}']\n`,
  );
  return file;
}

/** Opens of loader-like paths that are never folded: a write, not read-only, not a system library. */
export const neverFolded = [
  { pid: 5001, path: '/usr/lib/x86_64-linux-gnu/libc.so.6', flags: 'O_RDWR' },
  { pid: 5001, path: '/etc/ld.so.cache', flags: 'O_WRONLY|O_TRUNC', event_type: 'file_write' },
  { pid: 5001, path: '/tmp/evil.so', flags: 'O_RDONLY' },
  { pid: 5001, path: '/usr/lib/../../tmp/evil.so', flags: 'O_RDONLY' },
  { pid: 5001, path: '/etc/ld.so.preload', flags: 'O_RDONLY' },
  { pid: 5001, path: '/usr/lib/locale/C.utf8/LC_CTYPE' }, // no flags: not known read-only
];

interface Captured {
  agent: string;
  payload: Record<string, unknown>;
}

/** The captured Claude session under `run`, hostile text in, a denied call before its Stop. */
function claudeSession(run: string): Record<string, unknown>[] {
  const captured = readFileSync(
    join(packageRoot, 'test', 'fixtures', 'agents', 'hook-payloads.jsonl'),
    'utf8',
  )
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Captured)
    .filter(({ agent }) => agent === 'claude')
    .map(({ payload }): Record<string, unknown> => ({ ...payload, session_id: run }));
  const session = captured.map((payload): Record<string, unknown> => {
    if (payload['hook_event_name'] === 'UserPromptSubmit') return { ...payload, prompt: hostilePrompt };
    if (payload['tool_use_id'] !== ranCall) return payload;
    return { ...payload, tool_input: { command: hostileCommand, description: 'greeting' } };
  });
  const pre = session.find((payload) => payload['hook_event_name'] === 'PreToolUse')!;
  const denied = {
    ...pre,
    tool_input: { command: 'cat /etc/shadow > stolen.txt', description: 'steal' },
    tool_use_id: deniedCall,
  };
  const stop = session.findIndex((payload) => payload['hook_event_name'] === 'Stop');
  return [...session.slice(0, stop), denied, ...session.slice(stop)];
}

/** The native lines of the first tool call's processes, in time order. */
function toolCallLines(): string[] {
  let n = 0;
  const at = (): string => `2026-01-01T00:00:01.${String(++n).padStart(3, '0')}Z`;
  const shell = { pid: 5000, tgid: 5000, ppid: 4000, comm: 'bash', cgroup_id: '9001' };
  const cat = { pid: 5001, tgid: 5001, ppid: 5000, comm: 'cat', cgroup_id: '9001' };
  const of = (pid: number): typeof shell => (pid === 5000 ? shell : cat);
  const open = (fields: {
    pid: number;
    path: string;
    flags?: string | number;
    event_type?: string;
  }): string =>
    nativeLine({ event_type: 'file_open', timestamp: at(), ...of(fields.pid), ...fields, tgid: fields.pid });
  return [
    nativeLine({ timestamp: at(), ...shell, path: '/usr/bin/bash', argv: ['bash', '-c', hostileCommand] }),
    ...loaderLocaleOpens.slice(0, 4).map(open),
    open({
      pid: 5000,
      path: '/work/proj/greeting.txt',
      flags: 'O_WRONLY|O_CREAT|O_TRUNC',
      event_type: 'file_write',
    }),
    nativeLine({ timestamp: at(), ...cat, path: '/usr/bin/cat', argv: ['cat', 'greeting.txt'] }),
    ...loaderLocaleOpens.slice(4).map(open),
    open({ pid: 5001, path: '/work/proj/greeting.txt', flags: 'O_RDONLY' }),
    ...neverFolded.map(open),
    nativeLine({ event_type: 'dns_query', timestamp: at(), ...cat, path: undefined, query: 'example.com' }),
    nativeLine({
      event_type: 'network_connect',
      timestamp: at(),
      ...cat,
      path: undefined,
      dst_ip: '93.184.216.34',
      dst_port: 443,
    }),
    nativeLine({ event_type: 'process_exit', timestamp: at(), ...cat, path: undefined, exit_code: 0 }),
  ];
}

/** Posts the session's hook events, binds the first tool call and ingests its processes' events. */
export async function storeAgentSession(
  url: string,
  headers: Record<string, string>,
  run: string,
): Promise<void> {
  const post = async (path: string, body: string): Promise<void> => {
    const answer = await request(url, path, { method: 'POST', headers, body });
    assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
  };
  for (const payload of claudeSession(run)) {
    await post('/v1/hooks/claude', JSON.stringify(payload));
    if (payload['hook_event_name'] !== 'PreToolUse' || payload['tool_use_id'] !== ranCall) continue;
    // what the tool call's processes did, while it runs (its id carried by the binding)
    const binding = {
      run_id: run,
      tool_call_id: ranCall,
      cgroup_id: '9001',
      started_at: '2026-01-01T00:00:00Z',
    };
    await post('/v1/telemetry/bind', JSON.stringify(binding));
    const lines = toolCallLines();
    const answer = await request(url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      headers,
      body: lines.join('\n'),
    });
    assert.equal(answer.body['accepted'], lines.length, JSON.stringify(answer.body));
  }
}
