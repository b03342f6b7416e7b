import assert from 'node:assert/strict';
import { classifyEvent, metadataAddresses } from '../../src/telemetry/classify.js';
import type { EventType, ParsedEvent } from '../../src/model/event.js';

function event(type: EventType, attrs: Record<string, unknown>): ParsedEvent {
  return {
    type,
    source: 'native_jsonl',
    time: '2026-01-01T00:00:00Z',
    timeNs: 1_767_225_600_000_000_000n,
    pid: 1,
    tgid: 1,
    ppid: 0,
    uid: 0,
    loginUid: null,
    comm: 'x',
    cgroupId: null,
    containerId: null,
    attrs,
  };
}

function classified(type: EventType, attrs: Record<string, unknown>): ParsedEvent {
  const result = event(type, attrs);
  classifyEvent(result);
  return result;
}

describe('classifyEvent', function () {
  it('makes a file_open of a secret path secret_path and keeps the observed type', function () {
    const result = classified('file_open', { path: '/root/.aws/credentials' });
    assert.equal(result.type, 'secret_path');
    assert.equal(result.attrs.observed_type, 'file_open');
    assert.equal(result.attrs.path, '/root/.aws/credentials');
  });

  it('classifies every secret path category when it is opened for reading', function () {
    const secrets = [
      '/etc/shadow',
      '/etc/gshadow',
      'etc/shadow', // older Tetragon writes paths without the leading slash
      '/etc/./shadow',
      '/etc//shadow',
      '../../../etc/shadow',
      '/home/a/.ssh/id_rsa',
      '/home/a/.ssh/id_ed25519',
      '/etc/ssh/ssh_host_ed25519_key',
      '/root/.aws/credentials',
      '/home/a/.aws/config',
      '/home/a/.kube/config',
      '/home/a/.docker/config.json',
      '/home/a/.netrc',
      '/home/a/.git-credentials',
      '/home/a/.npmrc',
      '/home/a/.pypirc',
      '/home/a/.config/gcloud/credentials.db',
      '/home/a/.config/gcloud/application_default_credentials.json',
      '/etc/ssl/private/server.key',
      '/srv/tls/server.pem',
      '/home/a/cert.p12',
      '/home/a/cert.pfx',
      '/workspace/.env',
      '.env',
      '/workspace/.env.local',
      '/workspace/.env.production',
      '/var/run/secrets/kubernetes.io/serviceaccount/token',
      '/run/secrets/db_password',
      '/home/a/.cache/huggingface/token',
      '/home/a/client_secret.json',
      '/home/a/.config/github_token',
      '/home/a/Secrets/notes.txt',
    ];
    for (const path of secrets) assert.equal(classified('file_open', { path }).type, 'secret_path', path);
  });

  it('leaves near-miss paths alone when they hold no secret', function () {
    const ordinary = [
      '/home/a/.ssh/id_rsa.pub', // the public half
      '/home/a/.ssh/known_hosts',
      '/etc/shadowsocks.conf', // only whole system paths match
      '/etc/shadow.d/readme',
      '/etc/passwd',
      '10.0.0.5', // an address-looking file name is just a file name
      '/home/a/.aws/credentials.bak.d/readme',
      '/home/a/project/config', // `config` only counts inside .aws or .kube
      '/workspace/.env.example',
      '/workspace/.env.sample',
      '/workspace/.environment',
      '/usr/lib/python3.11/token.py', // source code named after the word
      '/usr/lib/python3.11/secrets.py',
      '/usr/lib/python3.11/__pycache__/token.cpython-311.pyc',
      '/models/llama/tokenizer.json',
      '/models/llama/special_tokens_map.json',
      '/home/a/secretary.txt',
      '/node_modules/@octokit/auth-token/dist/index.js',
      '/usr/lib/python3/site-packages/certifi/cacert.pem', // public CA bundles
      '/etc/ssl/certs/ISRG_Root_X1.pem',
      '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
      '',
    ];
    for (const path of ordinary) {
      const result = classified('file_open', { path });
      assert.equal(result.type, 'file_open', path);
      assert.equal(result.attrs.observed_type, undefined, path);
    }
  });

  it('leaves a secret path alone when the event is a write, rename or unlink', function () {
    for (const type of ['file_write', 'file_rename', 'file_unlink', 'execve'] as const) {
      assert.equal(classified(type, { path: '/workspace/.env' }).type, type);
    }
  });

  it('leaves a file_open alone when it has no string path', function () {
    assert.equal(classified('file_open', {}).type, 'file_open');
    assert.equal(classified('file_open', { path: 42 }).type, 'file_open');
  });

  it('makes a connect to each metadata address metadata_ip', function () {
    for (const ip of [...metadataAddresses, '::ffff:169.254.169.254', 'FD00:EC2:0:0:0:0:0:254']) {
      const result = classified('network_connect', { dst_ip: ip, dst_port: 80 });
      assert.equal(result.type, 'metadata_ip', ip);
      assert.equal(result.attrs.observed_type, 'network_connect');
    }
  });

  it('makes a connect into RFC 1918 space private_cidr', function () {
    const inside = [
      '10.0.0.5',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '::ffff:10.1.2.3',
    ];
    for (const ip of inside)
      assert.equal(classified('network_connect', { dst_ip: ip }).type, 'private_cidr', ip);
  });

  it('leaves a connect alone when the address is public, special or not an address', function () {
    const outside = [
      '172.32.0.1',
      '172.15.255.255',
      '192.169.0.1',
      '11.0.0.1',
      '9.255.255.255',
      '169.254.169.253',
      '127.0.0.1',
      '100.64.0.1',
      '8.8.8.8',
      '2001:db8::1',
      'fc00::1', // IPv6 ULA is not RFC 1918
      '010.0.0.5', // leading zeros are refused, not guessed
      '10.0.0',
      '10.0.0.5.1',
      'api.example.com',
      '',
    ];
    for (const ip of outside)
      assert.equal(classified('network_connect', { dst_ip: ip }).type, 'network_connect', ip);
    assert.equal(
      classified('network_connect', { dst_host: 'metadata.google.internal' }).type,
      'network_connect',
    );
  });

  it('leaves other event types alone when they carry a metadata address', function () {
    assert.equal(classified('dns_query', { dst_ip: '169.254.169.254' }).type, 'dns_query');
    assert.equal(classified('execve', { command: 'curl 169.254.169.254' }).type, 'execve');
  });
});
