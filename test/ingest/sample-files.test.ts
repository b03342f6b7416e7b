import assert from 'node:assert/strict';
import { missingTime } from '../../src/ingest/received-time.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { packageRoot } from '../../src/shared/package-root.js';
import type { IngestFormat } from '../../src/model/event.js';

// Real samples from other systems, copied byte for byte from shared/data (see its README).
function parseFixture(name: string, format: IngestFormat = 'auto'): ReturnType<typeof parseNdjson> {
  return parseNdjson(readFileSync(join(packageRoot, 'test', 'fixtures', name)), format, 1);
}

describe('sample telemetry files', function () {
  it('parses the AgentProvenance native sensor events with their classification', function () {
    const { events, rejected } = parseFixture('native-ebpf-events.jsonl', 'native');
    assert.equal(rejected, 0);
    assert.deepEqual(
      events.map((event) => event.type),
      ['execve', 'metadata_ip', 'private_cidr', 'secret_path'],
    );
    const [exec, , , secret] = events;
    assert.deepEqual(
      [exec?.pid, exec?.tgid, exec?.ppid, exec?.cgroupId, exec?.containerId, exec?.comm, exec?.attrs.path],
      [4242, 4242, 4000, '12345', 'container-native-demo', 'sh', '/bin/sh'],
    );
    assert.equal(exec?.attrs.producer, 'agentprov_ebpf');
    assert.equal(exec?.source, 'native_jsonl');
    assert.equal(secret?.attrs.path, '/home/agent/.aws/credentials');
    assert.equal(secret?.attrs.observed_type, 'file_open');
  });

  it('parses the LLM causal chain with TLS bodies, exec and a metadata connect', function () {
    const { events, rejected } = parseFixture('llm-causal-events.jsonl');
    assert.equal(rejected, 0);
    assert.deepEqual(
      events.map((event) => event.type),
      ['tls_write', 'tls_read', 'execve', 'metadata_ip'],
    );
    assert.equal(events[0]?.attrs.length, 180);
    assert.match(String(events[0]?.attrs.data), /^POST \/v1\/messages/);
    assert.equal(events[2]?.attrs.command, 'curl http://169.254.169.254/');
    assert.deepEqual([events[3]?.attrs.dst_ip, events[3]?.attrs.dst_port], ['169.254.169.254', 80]);
  });

  it('parses the Falco risk alerts into exec, metadata, private and secret events', function () {
    const { events, rejected } = parseFixture('falco-risk-events.jsonl', 'falco');
    assert.equal(rejected, 0);
    assert.deepEqual(
      events.map((event) => event.type),
      ['execve', 'metadata_ip', 'private_cidr', 'secret_path'],
    );
    assert.equal(events[0]?.attrs.command, 'sh -lc pytest -q');
    assert.equal(events[1]?.attrs.dst_ip, '169.254.169.254');
    assert.equal(events[1]?.attrs.rule, 'Metadata service access');
    assert.equal(events[1]?.attrs.priority, 'Critical');
    assert.equal(events[3]?.attrs.path, '/workspace/.env');
    assert.deepEqual(
      [events[0]?.pid, events[0]?.ppid, events[0]?.containerId],
      [4242, 4000, 'container-falco-demo'],
    );
  });

  it('parses the supply-chain exfiltration story with its secret reads', function () {
    const { events, rejected } = parseFixture('supply-chain-exfil.jsonl');
    assert.equal(rejected, 0);
    assert.deepEqual(
      events.map((event) => event.type),
      ['execve', 'execve', 'execve', 'secret_path', 'secret_path', 'metadata_ip', 'private_cidr'],
    );
    assert.equal(events[3]?.attrs.path, '/root/.aws/credentials');
    assert.equal(events[4]?.attrs.path, '/root/.ssh/id_rsa');
    assert.equal(events[3]?.time, '2026-06-29T10:00:04Z');
  });

  it('parses the Tetragon documentation events, the kprobe write with its path', function () {
    const { events, rejected } = parseFixture('tetragon-docs-events.jsonl', 'tetragon');
    assert.equal(rejected, 0);
    assert.deepEqual(
      events.map((event) => event.type),
      ['execve', 'process_exit', 'file_write', 'network_connect', 'network_connect'],
    );
    const [exec, , write, connect] = events;
    assert.deepEqual([exec?.pid, exec?.ppid, exec?.uid, exec?.comm], [115153, 114757, 0, 'curl']);
    assert.equal(exec?.containerId, '86eb9e29a77d432afc7a15b424db1d24a382f3caae26f860ab22df8cb5e96054');
    assert.equal(exec?.attrs.path, '/usr/bin/curl');
    assert.equal(exec?.time, '2022-01-19T16:29:01.861Z');
    assert.equal(write?.attrs.path, 'etc/passwd');
    assert.equal(write?.attrs.bytes, 627);
    assert.equal(write?.attrs.function_name, '__x64_sys_write');
    assert.deepEqual([connect?.attrs.dst_ip, connect?.attrs.dst_port], ['64.225.45.153', 443]);
  });

  it('keeps the samples without any timestamp, with the time left for normalize to stamp', function () {
    for (const name of [
      'falco-network-connect.jsonl',
      'loongcollector-file-write.jsonl',
      'tetragon-process-exec.jsonl',
    ]) {
      const { events, rejected } = parseFixture(name);
      assert.equal(rejected, 0, name);
      assert.equal(events.length, 1, name);
      assert.equal(events[0]?.time, missingTime, name);
    }
  });

  it('parses every sample in one auto body when the three formats are mixed', function () {
    const names = [
      'native-ebpf-events.jsonl',
      'falco-risk-events.jsonl',
      'tetragon-docs-events.jsonl',
      'llm-causal-events.jsonl',
      'supply-chain-exfil.jsonl',
    ];
    const body = Buffer.concat(
      names.map((name) => readFileSync(join(packageRoot, 'test', 'fixtures', name))),
    );
    const result = parseNdjson(body, 'auto', 1);
    assert.equal(result.rejected, 0);
    assert.equal(result.events.length, 24);
    assert.deepEqual(
      [...new Set(result.events.map((event) => event.source))],
      ['native_jsonl', 'falco', 'tetragon'],
    );
  });
});
