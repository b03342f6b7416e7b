import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
import { callTool, connectMcp, errorCode } from '../support/mcp.js';

type Message = Record<string, unknown>;

/**
 * A whole MCP session written by hand over the child's stdin, as any client would: every line the
 * server writes to stdout is collected, and the answer to each request awaited by id.
 */
function rawSession(url: string, env: Record<string, string> = {}) {
  const { PROVD_AUTH_TOKEN: _token, PROVD_URL: _url, ...inherited } = process.env;
  const child = spawn(process.execPath, [cliPath, 'ai', 'mcp', '--url', url], {
    env: { ...inherited, ...env },
    timeout: 40_000,
  });
  const lines: string[] = [];
  const waiting = new Map<number, (message: Message) => void>();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    try {
      const message = JSON.parse(line) as Message;
      if (typeof message['id'] === 'number') waiting.get(message['id'])?.(message);
    } catch {
      // kept in `lines`: the test fails on it
    }
  });
  let nextId = 1;
  return {
    lines,
    pid: child.pid!,
    stderr: () => stderr,
    send(text: string): void {
      child.stdin.write(text + '\n');
    },
    request(method: string, params: Message = {}): Promise<Message> {
      const id = nextId++;
      const answered = new Promise<Message>((resolve) => waiting.set(id, resolve));
      this.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return answered;
    },
    async end(): Promise<number | null> {
      child.stdin.end();
      const [code] = (await once(child, 'close')) as [number | null];
      return code;
    },
  };
}

/** A loopback port nothing listens on: one the kernel just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

const initialize = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'raw-client', version: '0.0.1' },
};

describe('provd ai mcp on stdio (a hand-written JSON-RPC session)', function () {
  const shared = useSharedDaemon({ authToken: 'mcp-token' });

  it('answers protocol revision 2025-06-18, writes nothing but JSON-RPC to stdout, and exits 0 when stdin closes', async function () {
    const session = rawSession(shared.daemon.url, { PROVD_AUTH_TOKEN: 'mcp-token' });
    const init = await session.request('initialize', initialize);
    const result = init['result'] as Message;
    assert.equal(result['protocolVersion'], '2025-06-18');
    assert.deepEqual((result['serverInfo'] as Message)['name'], 'provd');
    assert.deepEqual(result['capabilities'], { tools: { listChanged: false } });
    session.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const list = await session.request('tools/list');
    // a thin HTTP client: the daemon's native parts are not mapped into it
    const maps = readFileSync(`/proc/${session.pid}/maps`, 'utf8');
    assert.doesNotMatch(maps, /duckdb\.node|uws_linux/);
    assert.equal(((list['result'] as Message)['tools'] as unknown[]).length, 9);
    const gate = await session.request('tools/call', {
      name: 'evaluate_action',
      arguments: { event_type: 'ptrace' },
    });
    assert.equal(((gate['result'] as Message)['structuredContent'] as Message)['decision'], 'quarantine');
    const bad = await session.request('tools/call', { name: 'list_risks', arguments: { run: 7 } });
    assert.equal((bad['result'] as Message)['isError'], true);
    // a line that is not JSON is a diagnostic on stderr, not an answer on stdout, and the session goes on
    session.send('{"jsonrpc":"2.0","id":99,"method":');
    const ping = await session.request('ping');
    assert.deepEqual(ping['result'], {});
    const unknownMethod = await session.request('resources/list');
    assert.equal((unknownMethod['error'] as Message)['code'], -32601);
    assert.equal(await session.end(), 0);
    assert.ok(session.lines.length >= 6);
    for (const line of session.lines) {
      const message = JSON.parse(line) as Message;
      assert.equal(message['jsonrpc'], '2.0', line);
      assert.ok('result' in message || 'error' in message || 'method' in message, line);
    }
    assert.match(session.stderr(), /provd ai mcp: serving 9 tools/);
  });

  it('passes the token on: without PROVD_AUTH_TOKEN every tool answers unauthorized, with it the tools work', async function () {
    const without = await connectMcp(shared.daemon.url);
    try {
      const reply = await callTool(without, 'verify_run', { run: 'r' });
      assert.equal(reply.isError, true);
      assert.equal(errorCode(reply), 'unauthorized');
      // tools/list needs no daemon, so it works without the token
      assert.equal((await without.client.listTools()).tools.length, 9);
    } finally {
      await without.close();
    }
    const withToken = await connectMcp(shared.daemon.url, { PROVD_AUTH_TOKEN: 'mcp-token' });
    try {
      const reply = await callTool(withToken, 'verify_run', { run: 'r' });
      assert.equal(errorCode(reply), 'run_not_found', 'authorised: the daemon looked the run up');
    } finally {
      await withToken.close();
    }
  });

  it('gives a clear tool error, not a crash, when the daemon is down', async function () {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const session = await connectMcp(url);
    try {
      for (const name of ['list_events', 'evaluate_action']) {
        const args = name === 'list_events' ? { run: 'r' } : { event_type: 'execve' };
        const reply = await callTool(session, name, args);
        assert.equal(reply.isError, true);
        assert.equal(errorCode(reply), 'PROVD_ERR_CLI_UNREACHABLE');
        assert.match(
          (reply.json['error'] as { message: string }).message,
          /cannot reach the daemon at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.*is `provd daemon` running there\?/,
        );
      }
    } finally {
      await session.close();
    }
  });
});
