/**
 * What the fuzzer's daemon holds before the fuzzing starts, so valid requests reach real data:
 * a few runs, each bound to a cgroup, with events of every kind the policy judges (a secret read,
 * a metadata-address connect, a private address), tool calls asserted and one really recorded, and
 * a baseline. The ids, hashes and cursors of the answers go into the known values.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeLine } from '../../test/support/telemetry.js';
import type { KnownValues } from './known-values.js';
import type { SoakApi } from './soak-api.js';

export const seededRuns = ['soak-run-a', 'soak-run-b', 'soak-run-c'];

/** The events of one seeded run: every few seconds one of each kind, from one cgroup. */
function runEvents(cgroup: string, count: number): string {
  const kinds = [
    { event_type: 'execve', path: '/usr/bin/python3', argv: ['python3', '-m', 'pytest'] },
    { event_type: 'file_open', path: '/home/dev/.ssh/id_rsa' },
    { event_type: 'network_connect', dst_ip: '169.254.169.254', dst_port: 80 },
    { event_type: 'network_connect', dst_ip: '10.0.0.5', dst_port: 5432 },
    { event_type: 'dns_query', query: 'example.com' },
    { event_type: 'file_write', path: '/work/out.txt' },
    { event_type: 'process_exit', exit_code: 1 },
    { event_type: 'tls_write', data: 'POST /v1/messages HTTP/1.1\r\nhost: api.example.com\r\n\r\n{}' },
  ];
  return Array.from({ length: count }, (_v, i) => {
    const second = String(i % 60).padStart(2, '0');
    return nativeLine({
      ...kinds[i % kinds.length],
      cgroup_id: cgroup,
      pid: 5000 + (i % 7),
      tgid: 5000 + (i % 7),
      timestamp: `2026-01-01T00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${second}.${i}Z`,
    });
  }).join('\n');
}

/** A directory the fuzzed records run in: owned by nobody's group rights, empty but for one file. */
export function makeRecordCwd(): string {
  const dir = mkdtempSync(join(tmpdir(), 'provd-soak-cwd-'));
  writeFileSync(join(dir, 'readme.txt'), 'soak\n');
  chmodSync(dir, 0o777);
  return dir;
}

/** Fills the store and the known values. */
export async function seedStore(api: SoakApi, known: KnownValues, recordCwd: string): Promise<void> {
  for (const [i, run] of seededRuns.entries()) {
    const cgroup = String(9100 + i);
    known.add('run', run);
    known.add('cgroup', cgroup);
    await api.post('/v1/telemetry/bind', {
      run_id: run,
      tool_call_id: 'tc-bound',
      cgroup_id: cgroup,
      session_id: `session-${i}`,
      started_at: '2026-01-01T00:00:00Z',
    });
    const body = Buffer.from(runEvents(cgroup, 400));
    const request = api.postRequest('/v1/telemetry/ingest?format=native', body, 'application/x-ndjson');
    const outcome = await api.send(request);
    if (!('answer' in outcome) || outcome.answer.status !== 200)
      throw new Error(
        `seeding ${run}: ingest failed: ${'answer' in outcome ? outcome.answer.status : outcome.error}`,
      );
    for (let t = 0; t < 3; t++)
      await api.post('/v1/record', {
        run_id: run,
        tool_call_id: `tc-asserted-${t}`,
        command: 'pytest',
        args: ['-q', `test_${t}.py`],
        execute: false,
        llm_usage: [{ model: 'claude-sonnet-4-5-20250929', input_tokens: 1200, output_tokens: 300 }],
      });
  }
  await api.post('/v1/record', {
    run_id: seededRuns[0],
    tool_call_id: 'tc-recorded',
    command: 'sh',
    args: ['-c', 'echo soak > out.txt'],
    cwd: recordCwd,
  });
  await api.post('/v1/security/baselines', { name: 'soak-agent', runs: seededRuns.slice(0, 2) });
  known.add('baseline', 'soak-agent');
  known.add('word', 'pytest');
  known.add('word', 'id_rsa');
  for (const run of seededRuns)
    for (const target of [
      `/v1/telemetry/events?run=${run}&limit=5`,
      `/v1/context/entries?run=${run}&limit=5`,
      `/v1/security/risks?run=${run}&limit=2`,
      `/v1/timeline?run=${run}&limit=5`,
      `/v1/context/overview?run=${run}`,
    ])
      known.learn(await api.get(target));
  known.learn(await api.get('/v1/runs?limit=2'));
}
