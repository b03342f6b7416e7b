/** Helpers for the export tests: a run with events on a daemon, and a tar archive read back. */
import assert from 'node:assert/strict';
import { readTar } from '../../../src/shared/tar/tar-reader.js';
import { bind, ingest, nativeLine } from '../../support/telemetry.js';

/** Binds `run` to cgroup `cgroup` and ingests `count` events of it (execve and file_open, alternating). */
export async function seedRun(
  url: string,
  run: string,
  cgroup: string,
  count: number,
  day = '2026-01-01',
): Promise<void> {
  await bind(url, {
    run_id: run,
    tool_call_id: `${run}-call`,
    cgroup_id: cgroup,
    started_at: `${day}T00:00:00Z`,
  });
  const lines = Array.from({ length: count }, (_, i) =>
    nativeLine({
      event_type: i % 3 === 0 ? 'file_open' : 'execve',
      timestamp: `${day}T00:00:${String(1 + (i % 50)).padStart(2, '0')}.${String(i).padStart(6, '0')}Z`,
      cgroup_id: cgroup,
      pid: 1000 + i,
      tgid: 1000 + i,
      path: i % 3 === 0 ? `/etc/file-${i}` : '/bin/sh',
    }),
  );
  const answer = await ingest(url, lines.join('\n') + '\n', 'native');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body['accepted'], count);
}

/** GETs a path with optional headers and returns status, media type and the bytes. */
export async function fetchBytes(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; bytes: Uint8Array }> {
  const response = await fetch(url + path, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

/** The paths of an archive's files. */
export function archivePaths(bytes: Uint8Array): string[] {
  return readTar(bytes).map((entry) => entry.path);
}
