/**
 * Every line of test/fixtures/real/ (events Tetragon and Falco themselves publish; sources in its
 * README) is accepted and mapped field by field. Expected values are read from each raw line by
 * independent, literal rules here, never from the parser's output.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import type { ParsedEvent } from '../../src/model/event.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, ingest, pageAll } from '../support/telemetry.js';
import { tetragonJoin } from '../support/tetragon-join.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/real/', import.meta.url));

function lines(file: string): { text: string; value: Record<string, unknown> }[] {
  return readFileSync(fixtures + file, 'utf8')
    .split('\n')
    .filter((text) => text.trim() !== '')
    .map((text) => ({ text, value: JSON.parse(text) as Record<string, unknown> }));
}

/** Parses one line as the ingest endpoint does with format=auto; fails the test on a rejection. */
function accepted(text: string, where: string): ParsedEvent {
  const result = parseNdjson(Buffer.from(text), 'auto', 1);
  assert.deepEqual(result.errors, [], where);
  assert.equal(result.events.length, 1, where);
  return result.events[0]!;
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});

/** Expected types of Tetragon hook functions, written from what each kernel function does. */
const tetragonFunctionTypes: Record<string, string> = {
  write: 'file_write',
  read: 'file_read',
  fd_install: 'file_open',
  security_file_open: 'file_open',
  security_file_permission: 'file_open', // a write when its mask holds MAY_WRITE
  openat: 'file_open',
  tcp_connect: 'network_connect',
  connect: 'network_connect',
  commit_creds: 'credential_change',
  setns: 'namespace_change',
  unshare: 'namespace_change',
  do_init_module: 'module_load',
  security_kernel_module_request: 'module_load',
  security_kernel_read_file: 'file_read',
  setuid: 'setuid',
  setgid: 'setgid',
  ptrace: 'ptrace',
  unlinkat: 'file_unlink',
  renameat2: 'file_rename',
  listen: 'network_listen',
  accept: 'network_accept',
};

function strip(name: string): string {
  return name.replace(/^(__x64_sys_|__arm64_sys_|__ia32_sys_|sys_enter_|ksys_|sys_)/, '');
}

describe('real published lines (test/fixtures/real)', function () {
  it('keeps every Tetragon line, with its process, time, type, arguments, paths and addresses', function () {
    const all = lines('tetragon.jsonl');
    assert.ok(all.length >= 20, 'the corpus holds real lines');
    const kinds = new Set<string>();
    all.forEach(({ text, value }, index) => {
      const where = `tetragon.jsonl line ${index + 1}`;
      const event = accepted(text, where);
      assert.equal(event.source, 'tetragon', where);
      const kind = Object.keys(value).find((key) => key.startsWith('process_') || key === 'rate_limit_info')!;
      kinds.add(kind);
      const body = object(value[kind]);
      const proc = object(body['process']);
      if (typeof value['time'] === 'string') assert.equal(event.time, value['time'], where);
      assert.equal(event.pid, proc['pid'] ?? null, where);
      assert.equal(event.ppid, object(body['parent'])['pid'] ?? null, where);
      if (typeof proc['binary'] === 'string') {
        assert.equal(event.comm, proc['binary'].split('/').pop(), where);
      }
      if (kind === 'process_exec') {
        assert.equal(event.type, 'execve', where);
        assert.equal(event.attrs['path'], proc['binary'], where);
        const argv = event.attrs['argv'] as string[];
        assert.equal(argv[0], proc['binary'], where);
        assert.equal(tetragonJoin(argv.slice(1)), proc['arguments'] ?? '', where);
      } else if (kind === 'process_exit') {
        assert.equal(event.type, 'process_exit', where);
        if (body['signal'] === undefined) assert.equal(event.attrs['exit_code'], body['status'] ?? 0, where);
      } else if (kind === 'process_kprobe' || kind === 'process_lsm' || kind === 'process_tracepoint') {
        const name = String(body[kind === 'process_tracepoint' ? 'event' : 'function_name']);
        const expected = tetragonFunctionTypes[strip(name)] ?? tetragonFunctionTypes[`security_${name}`];
        if (expected !== undefined) {
          // a read or open of a secret path is classified; its parser type is kept in observed_type
          const type = event.attrs['observed_type'] ?? event.type;
          assert.equal(
            type === 'file_write' && expected === 'file_open' ? expected : type,
            expected,
            `${where}: ${name}`,
          );
        } else {
          assert.equal(event.type, 'generic', `${where}: ${name}`);
          assert.deepEqual(event.attrs['args'], body['args'], where);
        }
        const args = (body['args'] ?? []) as Json[];
        const firstPath = args
          .map((arg) => object(arg['file_arg'] ?? arg['path_arg'])['path'])
          .find((p) => p !== undefined);
        if (expected !== undefined && firstPath !== undefined)
          assert.equal(event.attrs['path'], firstPath, where);
        const sock = args.map((arg) => object(arg['sock_arg'])).find((s) => s['daddr'] !== undefined);
        if (expected !== undefined && sock !== undefined) {
          assert.equal(event.attrs['dst_ip'], sock['daddr'], where);
          assert.equal(event.attrs['dst_port'], sock['dport'] ?? undefined, where);
        }
      } else if (kind === 'process_throttle' || kind === 'rate_limit_info') {
        assert.equal(event.type, 'capture_loss', where);
      } else if (kind === 'process_connect') {
        assert.equal(event.attrs['observed_type'] ?? event.type, 'network_connect', where);
        assert.equal(event.attrs['dst_ip'], body['destination_ip'], where);
      } else if (kind === 'process_listen' || kind === 'process_accept') {
        assert.equal(event.type, kind === 'process_listen' ? 'network_listen' : 'network_accept', where);
      } else {
        assert.equal(event.type, 'generic', where);
        assert.equal(event.attrs['kind'], kind, where);
      }
    });
    const published = [
      'process_exec',
      'process_exit',
      'process_kprobe',
      'process_throttle',
      'process_connect',
    ];
    for (const kind of [...published, 'process_listen', 'process_close', 'process_loader']) {
      assert.ok(kinds.has(kind), kind);
    }
  });

  it('keeps every Falco alert, with its process, time, rule, source and fields', function () {
    const all = lines('falco.jsonl');
    assert.ok(all.length >= 10, 'the corpus holds real alerts');
    all.forEach(({ text, value }, index) => {
      const where = `falco.jsonl line ${index + 1}`;
      const event = accepted(text, where);
      assert.equal(event.source, 'falco', where);
      const fields = object(value['output_fields']);
      if (typeof value['time'] === 'string') assert.equal(event.time, value['time'], where);
      assert.equal(event.pid, fields['proc.pid'] ?? null, where);
      assert.equal(event.ppid, fields['proc.ppid'] ?? null, where);
      assert.equal(event.attrs['rule'], value['rule'], where);
      assert.deepEqual(Object.keys(object(event.attrs['output_fields'])), Object.keys(fields), where);
      const source = value['source'];
      if (
        typeof value['rule'] === 'string' &&
        value['rule'].startsWith('Falco internal: syscall event drop')
      ) {
        assert.equal(event.type, 'capture_loss', where);
      } else if (source !== undefined && source !== 'syscall') {
        assert.deepEqual([event.type, event.attrs['falco_source']], ['generic', source], where);
      } else if (fields['evt.type'] === undefined && fields['evt.arg.uid'] !== undefined) {
        assert.equal(event.type, 'setuid', where);
      } else if (typeof fields['fd.rip'] === 'string' || typeof fields['fd.sip'] === 'string') {
        assert.equal(event.attrs['observed_type'] ?? event.type, 'network_connect', where);
      } else if (
        fields['evt.type'] === undefined &&
        typeof fields['fd.name'] === 'string' &&
        fields['fd.name'].startsWith('/')
      ) {
        assert.equal(event.attrs['path'], fields['fd.name'], where);
      } else if (
        fields['evt.type'] === undefined &&
        typeof fields['proc.cmdline'] === 'string' &&
        fields['fd.name'] === undefined
      ) {
        assert.deepEqual([event.type, event.attrs['command']], ['execve', fields['proc.cmdline']], where);
      }
    });
  });

  it('stores published shapes as what they are: the kernel placeholder, opens for writing that print no flags', function () {
    const [placeholder] = lines('tetragon-kernel-placeholder.jsonl');
    const kernel = accepted(placeholder!.text, 'the placeholder');
    assert.deepEqual(
      [kernel.type, kernel.pid, kernel.attrs['kind'], kernel.attrs['binary'], kernel.attrs['placeholder']],
      ['generic', 0, 'process_exec', '<kernel>', 'kernel'],
      'no exec happened: Tetragon stands the kernel in as a process',
    );
    // the kernel as the parent of a real exec (its usermode helper running modprobe) is an exec
    const modprobe = accepted(lines('tetragon.jsonl')[2]!.text, 'tetragon.jsonl line 3');
    assert.deepEqual([modprobe.type, modprobe.ppid, modprobe.attrs['path']], ['execve', 0, '/sbin/modprobe']);

    const writes = [...lines('falco-write-below.jsonl'), ...lines('falco.jsonl').slice(6, 8)];
    for (const [index, { text, value }] of writes.entries()) {
      const event = accepted(text, `Write below binary dir ${index}`);
      assert.equal(value['rule'], 'Write below binary dir');
      assert.deepEqual(
        [event.type, event.attrs['path'], event.attrs['type_inferred_from']],
        ['file_write', object(value['output_fields'])['fd.name'], 'fd.name, output'],
      );
    }
    // a read of a file, which says nothing of writing, stays an open (classified by its path)
    const read = accepted(lines('falco.jsonl')[28]!.text, 'falco.jsonl line 29');
    assert.equal(read.attrs['observed_type'] ?? read.type, 'file_open');
  });

  it('reads an alert without output_fields (Falco 0.41+ can leave them out) from its text, as its fields say', function () {
    // none is published: each published syscall alert, with output_fields taken out as that option does
    const plain = (value: unknown): string =>
      typeof value === 'string' ? value.trim() : JSON.stringify(value);
    let recovered = 0;
    for (const [index, { value }] of lines('falco.jsonl').entries()) {
      const source = typeof value['source'] === 'string' ? value['source'] : 'syscall';
      if (!source.startsWith('syscall') || String(value['rule']).startsWith('Falco internal')) continue;
      const where = `falco.jsonl line ${index + 1} without output_fields`;
      const withFields = accepted(JSON.stringify(value), where);
      const bare = accepted(JSON.stringify({ ...value, output_fields: undefined }), where);
      assert.equal(
        bare.attrs['output_fields'],
        undefined,
        'text is never passed off as the fields Falco sent',
      );
      const text = object(bare.attrs['fields_from_output']);
      for (const [field, sent] of Object.entries(object(value['output_fields']))) {
        // text cannot carry the spaces around a value
        const read = text[field];
        if (read !== undefined) assert.equal(plain(read), plain(sent), `${where}: ${field}`);
      }
      // what the text names is what the fields name; what it does not name stays unknown
      for (const key of ['comm', 'containerId', 'uid'] as const) {
        if (bare[key] !== null) assert.equal(bare[key], withFields[key], `${where}: ${key}`);
      }
      if (text['evt.type'] !== undefined) assert.equal(bare.type, withFields.type, `${where}: type`);
      if (Object.keys(text).length > 0) recovered++;
    }
    assert.ok(recovered >= 8, `fields of ${recovered} alerts read back from their text`);
    const newest = lines('falco.jsonl')[28]!; // Falco 0.40, its rules' current output
    const [bare, full] = [{ ...newest.value, output_fields: undefined }, newest.value].map((value) =>
      accepted(JSON.stringify(value), 'falco.jsonl line 29'),
    );
    assert.deepEqual(
      [bare!.type, bare!.comm, bare!.containerId, bare!.uid, bare!.attrs['path']],
      [full!.type, full!.comm, full!.containerId, full!.uid, full!.attrs['path']],
    );

    // a command line cannot speak for the rule: a label it repeats is left out, and no pid is read
    const forge = (line: number, command: string, extra: string): ParsedEvent => {
      const { value } = lines('falco.jsonl')[line - 1]!;
      const output = String(value['output']).replace(command, `${command} ${extra}`);
      assert.notEqual(output, value['output']);
      return accepted(JSON.stringify({ ...value, output, output_fields: undefined }), `line ${line} forged`);
    };
    const shell = forge(16, 'cmdline=sh -c clear;', 'pid=1 container_id=0123456789ab');
    assert.deepEqual([shell.pid, shell.containerId], [null, null]);
    assert.deepEqual(shell.attrs['output_labels_ambiguous'], ['container_id']);
    const cat = forge(29, 'command=cat', 'process=init');
    assert.deepEqual([cat.comm, cat.attrs['output_labels_ambiguous']], [null, ['process']]);
    const unforged = [16, 29].map((line) =>
      accepted(
        JSON.stringify({ ...lines('falco.jsonl')[line - 1]!.value, output_fields: undefined }),
        'plain',
      ),
    );
    assert.deepEqual([unforged[0]!.containerId, unforged[1]!.comm], ['ee97d9c4186f', 'cat']);
  });

  it('stores Tetragon hooks written from its sources as what they are: an execve kprobe, a socket with no IP destination', function () {
    // none is published: a published kprobe line (tetragon.jsonl line 38) with the function and
    // arguments Tetragon writes for these hooks (pkg/reader/network: an unknown family as its
    // number, the address as "<nil>", "invalid IP" from v1.7)
    const base = lines('tetragon.jsonl')[37]!.value;
    const hook = (functionName: string, args: unknown[]): ParsedEvent => {
      const kprobe = { ...object(base['process_kprobe']), function_name: functionName, args };
      return accepted(JSON.stringify({ ...base, process_kprobe: kprobe }), functionName);
    };
    const exec = hook('__x64_sys_execve', [{ string_arg: '/usr/bin/curl' }]);
    assert.deepEqual(
      [exec.type, exec.attrs['path'], exec.attrs['function_name']],
      ['execve', '/usr/bin/curl', '__x64_sys_execve'],
    );
    for (const address of ['<nil>', 'invalid IP']) {
      const sock = {
        family: '26977',
        type: 'SOCK_STREAM',
        protocol: 'IPPROTO_TCP',
        saddr: address,
        daddr: address,
        sport: 25697,
        dport: 29285,
      };
      const connect = hook('tcp_connect', [{ sock_arg: sock }]);
      assert.equal(connect.type, 'network_connect', 'the connect happened');
      assert.deepEqual(
        [
          connect.attrs['dst_ip'],
          connect.attrs['dst_port'],
          connect.attrs['src_ip'],
          connect.attrs['family'],
        ],
        [undefined, undefined, undefined, '26977'],
        `${address}: nothing in it is a destination`,
      );
      assert.match(
        String(connect.attrs['unreadable']),
        /args\[0\]\.sock_arg: no IP destination \(family 26977/,
      );
      assert.deepEqual(connect.attrs['sock_arg'], sock, 'kept as sent');
    }
    const good = hook('tcp_connect', [
      {
        sock_arg: {
          family: 'AF_INET',
          type: 'SOCK_STREAM',
          protocol: 'IPPROTO_TCP',
          saddr: '10.0.0.2',
          daddr: '127.0.0.1',
          sport: 40000,
          dport: 443,
        },
      },
    ]);
    assert.deepEqual(
      [good.attrs['dst_ip'], good.attrs['dst_port'], good.attrs['unreadable']],
      ['127.0.0.1', 443, undefined],
    );
  });

  describe('through the ingest endpoint', function () {
    const daemons = useDaemonFixture();

    it('accepts every line of both files in one auto-detected body, and counts them per source', async function () {
      const daemon = await daemons.start();
      const tetragon = readFileSync(fixtures + 'tetragon.jsonl', 'utf8');
      const falco = readFileSync(fixtures + 'falco.jsonl', 'utf8');
      const answer = await ingest(daemon.url, tetragon + '\n' + falco, 'auto');
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body['errors'], []);
      assert.equal(answer.body['accepted'], lines('tetragon.jsonl').length + lines('falco.jsonl').length);
      const sources = (await request(daemon.url, '/v1/telemetry/producer-health')).body['sources'] as Record<
        string,
        Record<string, number>
      >;
      assert.equal(sources['tetragon']?.['accepted'], lines('tetragon.jsonl').length);
      assert.equal(sources['falco']?.['accepted'], lines('falco.jsonl').length);
    });

    // issue 41: the listen was stored as generic, the connect without args as a connect to nowhere
    it('stores a published listen as a listen, and a connect whose destination was not given says so, in the event and in producer health', async function () {
      const daemon = await daemons.start();
      const [listen, connect] = lines('tetragon-listen-connect.jsonl');
      // the same connect from a policy that captures no argument: args left out, null or empty
      const bare = (args: unknown): string => {
        const kprobe = { ...object(connect!.value['process_kprobe']), args };
        return JSON.stringify({ ...connect!.value, process_kprobe: kprobe });
      };
      const body = [listen!.text, connect!.text, bare(undefined), bare(null), bare([])].join('\n');
      const containerId = 'd665767d27511008a0c12fae494594ef5daf1d01af7ee3a213c5ebc14348fce8';
      await bind(daemon.url, { run_id: 'ssh-tunnel', tool_call_id: 'tc', container_id: containerId });
      const answer = await ingest(daemon.url, body, 'tetragon');
      assert.deepEqual([answer.status, answer.body['accepted'], answer.body['errors']], [200, 5, []]);

      const events = await pageAll(daemon.url, 'run=ssh-tunnel');
      assert.equal(events.length, 5);
      const attrsOf = (event: Record<string, unknown>): Record<string, unknown> => object(event['attrs']);
      const [listened, ...connects] = events;
      const sock = object(
        object((object(listen!.value['process_kprobe'])['args'] as unknown[])[0])['sock_arg'],
      );
      assert.deepEqual(
        [listened!['type'], attrsOf(listened!)['src_ip'], attrsOf(listened!)['src_port']],
        ['network_listen', sock['saddr'], sock['sport']],
        'the port sshd listens on (its remote forward), as the socket gives it',
      );
      assert.deepEqual(
        [attrsOf(listened!)['dst_ip'], attrsOf(listened!)['dst_port'], attrsOf(listened!)['function_name']],
        [undefined, undefined, 'inet_csk_listen_start'],
        'a listening socket has no peer: its daddr 0.0.0.0 and dport 0 are no destination',
      );
      const [sent, ...unsent] = connects;
      assert.deepEqual(
        [attrsOf(sent!)['observed_type'], attrsOf(sent!)['dst_ip'], attrsOf(sent!)['dst_port']],
        ['network_connect', '10.244.0.232', 8080],
      );
      assert.equal(attrsOf(sent!)['no_destination'], undefined);
      for (const event of unsent) {
        assert.deepEqual([event['type'], attrsOf(event)['dst_ip']], ['network_connect', undefined]);
        assert.equal(
          attrsOf(event)['no_destination'],
          'the producer sent no destination: tcp_connect carries no sock or sockaddr argument with an address',
        );
      }
      const health = await request(daemon.url, '/v1/telemetry/producer-health');
      const sources = health.body['sources'] as Record<string, Record<string, number>>;
      assert.equal(sources['tetragon']?.['connect_no_destination'], 3);
      assert.equal(
        sources['tetragon']?.['generic:process_kprobe'],
        undefined,
        'nothing was stored as generic',
      );
    });
  });
});
