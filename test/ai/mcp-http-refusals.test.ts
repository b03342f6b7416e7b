import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { useSharedDaemon } from '../support/daemon.js';
import { connectMcpHttp } from '../support/mcp.js';

/** What a Streamable HTTP client sends with every POST (MCP 2025-11-25, Transports). */
const clientHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/** POSTs `body` to /mcp on the loopback `port` with `host` as the Host header; the status and error code. */
function postWithHost(port: number, host: string, body: string): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...clientHeaders, host } },
      (answer) => {
        let text = '';
        answer.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        answer.on('end', () => {
          const error = (JSON.parse(text) as { error: { code: string } }).error;
          resolve({ status: answer.statusCode ?? 0, code: error.code });
        });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

describe('POST /mcp refuses hostile and malformed requests as the MCP spec and the daemon require', function () {
  const shared = useSharedDaemon();

  async function post(
    body: string | Uint8Array,
    headers: Record<string, string> = clientHeaders,
  ): Promise<Answer> {
    const answer = await fetch(`${shared.daemon.url}/mcp`, { method: 'POST', headers, body });
    const text = await answer.text();
    return {
      status: answer.status,
      headers: answer.headers,
      body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
    };
  }

  /** The JSON-RPC error of an answer: its code and message. */
  const rpcError = (answer: Answer): [number, string] => {
    const error = answer.body?.['error'] as { code: number; message: string };
    return [error.code, error.message];
  };

  it('answers a well-formed initialize and tools/list (the baseline the refusals differ from)', async function () {
    const answer = await post(JSON.stringify(initialize));
    assert.equal(answer.status, 200);
    assert.equal((answer.body?.['result'] as { protocolVersion: string }).protocolVersion, '2025-11-25');
    // stateless: no session is handed out
    assert.equal(answer.headers.get('mcp-session-id'), null);
    const tools = await post(JSON.stringify(listTools));
    assert.equal(((tools.body?.['result'] as { tools: unknown[] }).tools ?? []).length, 9);
  });

  it('answers JSON that does not parse 400 with a JSON-RPC parse error (-32700)', async function () {
    for (const body of ['{"jsonrpc":"2.0","id":1,', 'not json', '']) {
      const answer = await post(body);
      assert.equal(answer.status, 400, body);
      assert.deepEqual(rpcError(answer), [-32700, 'Parse error: Invalid JSON'], body);
      assert.equal(answer.body?.['id'], null);
    }
  });

  it('answers JSON that is not a JSON-RPC message 400, and a batch of more than the SDK allows', async function () {
    for (const body of [
      {},
      [],
      42,
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: {}, method: 'ping' },
    ]) {
      const answer = await post(JSON.stringify(body));
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(rpcError(answer)[0] < 0, true);
    }
  });

  it('answers an unknown method with JSON-RPC -32601 and an invalid tools/call with -32602', async function () {
    const unknown = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/list' }));
    assert.equal(unknown.status, 200);
    assert.deepEqual([unknown.body?.['id'], rpcError(unknown)[0]], [3, -32601]);
    const invalid = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 7 } }),
    );
    assert.deepEqual([invalid.body?.['id'], rpcError(invalid)[0]], [4, -32602]);
  });

  it('answers a notification alone 202 with no body', async function () {
    const answer = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    assert.equal(answer.status, 202);
    assert.equal(answer.body, undefined);
  });

  it('answers 406 to a client that does not accept both JSON and an event stream', async function () {
    for (const accept of ['application/json', 'text/event-stream', '*/*', '']) {
      const answer = await post(JSON.stringify(listTools), { ...clientHeaders, accept });
      assert.equal(answer.status, 406, accept);
      assert.equal(rpcError(answer)[0], -32000);
    }
  });

  it('answers 415 to a body that is not application/json, before reading it', async function () {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
    ]) {
      const answer = await post(JSON.stringify(listTools), { ...clientHeaders, 'content-type': type });
      assert.equal(answer.status, 415, type);
      assert.equal((answer.body?.['error'] as { code: string }).code, 'unsupported_media_type');
    }
  });

  it('answers 413 to a body over 1 MiB, declared or not, and keeps serving', async function () {
    const huge = JSON.stringify({ ...listTools, params: { pad: 'x'.repeat(1024 * 1024) } });
    const answer = await post(huge);
    assert.equal(answer.status, 413);
    assert.equal((answer.body?.['error'] as { code: string }).code, 'payload_too_large');
    const streamed = await fetch(`${shared.daemon.url}/mcp`, {
      method: 'POST',
      headers: clientHeaders,
      body: new Blob([huge]).stream(),
      duplex: 'half',
    });
    assert.equal(streamed.status, 413);
    assert.equal((await post(JSON.stringify(listTools))).status, 200);
  });

  it('answers 404 to any Mcp-Session-Id: the server is stateless and issued none', async function () {
    for (const id of ['1868a90c-4b3e-4b1b-9b3e-000000000000', 'x'.repeat(300)]) {
      const answer = await post(JSON.stringify(listTools), { ...clientHeaders, 'mcp-session-id': id });
      assert.equal(answer.status, 404);
      assert.equal(rpcError(answer)[0], -32001);
    }
  });

  it('answers 400 to an MCP-Protocol-Version the server does not speak', async function () {
    const answer = await post(JSON.stringify(listTools), {
      ...clientHeaders,
      'mcp-protocol-version': '1999-01-01',
    });
    assert.equal(answer.status, 400);
    assert.match(rpcError(answer)[1], /Unsupported protocol version: 1999-01-01/);
  });

  it("answers 403 to a web page's request: another Origin, a cross-site fetch, a rebinding Host", async function () {
    const pages: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const marks of pages) {
      const answer = await post(JSON.stringify(initialize), { ...clientHeaders, ...marks });
      assert.equal(answer.status, 403, JSON.stringify(marks));
      assert.equal((answer.body?.['error'] as { code: string }).code, 'forbidden');
    }
    // fetch sends its own Host: a rebinding page's name goes in over node:http
    const rebinding = await postWithHost(shared.daemon.port, 'evil.example', JSON.stringify(initialize));
    assert.deepEqual([rebinding.status, rebinding.code], [403, 'forbidden']);
    // the daemon's own origin passes, as for the web view
    const own = await post(JSON.stringify(initialize), { ...clientHeaders, origin: shared.daemon.url });
    assert.equal(own.status, 200);
  });

  it('answers 405 to GET (no server-initiated stream), DELETE (no session) and others, naming POST', async function () {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const answer = await fetch(`${shared.daemon.url}/mcp`, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers.get('allow'), 'POST', method);
    }
  });

  it('still serves the SDK client after all of it', async function () {
    const session = await connectMcpHttp(shared.daemon.url);
    try {
      assert.equal((await session.client.listTools()).tools.length, 9);
    } finally {
      await session.close();
    }
  });
});
