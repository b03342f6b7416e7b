/**
 * A scripted model server on 127.0.0.1 (port 0) for one agent: it answers each of the agent's turn
 * requests with the script's next turn, mapped to the agent's own tools, and anything after the
 * script's end (or a side request) with a final text, never a hang. It records every request, when
 * each tool call was sent, and when its result came back.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { anthropicProtocol } from './anthropic-protocol.js';
import { geminiProtocol } from './gemini-protocol.js';
import { openaiProtocol } from './openai-protocol.js';
import type { ModelProtocol } from './protocol.js';
import {
  scriptEndText,
  type AgentName,
  type RecordedRequest,
  type Script,
  type ToolResult,
} from './script.js';
import { toAgentCall } from './tool-calls.js';

const protocols: Record<AgentName, ModelProtocol> = {
  claude: anthropicProtocol,
  codex: openaiProtocol,
  gemini: geminiProtocol,
};

/** A request body larger than this is answered 413 (agents send their whole history each turn). */
const maxBodyBytes = 64 * 1024 * 1024;

export interface ToolCallTiming {
  readonly id: string;
  /** When the answer carrying the call was sent (performance.now()). */
  readonly sentAtMs: number;
  /** When the first request carrying its result arrived, if one did. */
  readonly resultAtMs: number | undefined;
}

export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  private nextTurn = 0;
  private readonly sentAt = new Map<string, number>();
  private readonly resultAt = new Map<string, number>();
  private readonly protocol: ModelProtocol;

  private constructor(
    readonly agent: AgentName,
    private readonly script: Script,
    private readonly server: Server,
    readonly port: number,
  ) {
    this.protocol = protocols[agent];
  }

  static async start(agent: AgentName, script: Script): Promise<ScriptedModelServer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const model = new ScriptedModelServer(agent, script, server, (server.address() as AddressInfo).port);
    server.on('request', (req, res) => model.handle(req, res));
    return model;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Every tool result the agent sent back, in order, each once (the first request carrying it). */
  toolResults(): ToolResult[] {
    const seen = new Map<string, ToolResult>();
    for (const request of this.requests) {
      for (const result of this.protocol.toolResults(request.body))
        if (!seen.has(result.id)) seen.set(result.id, result);
    }
    return [...seen.values()];
  }

  /** The scripted turns answered so far. */
  get turnsTaken(): number {
    return this.nextTurn;
  }

  /** Each tool call sent, with when its result came back. */
  timings(): ToolCallTiming[] {
    return [...this.sentAt].map(([id, sentAtMs]) => ({ id, sentAtMs, resultAtMs: this.resultAt.get(id) }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    req.on('end', () => {
      const receivedAtMs = performance.now();
      const method = req.method ?? '';
      const url = req.url ?? '';
      if (size > maxBodyBytes) {
        res.writeHead(413).end();
        return;
      }
      let body: unknown = null;
      try {
        body = chunks.length === 0 ? null : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      this.requests.push({ method, url, body, receivedAtMs });
      this.answer(method, url, body, receivedAtMs, res);
    });
  }

  private answer(
    method: string,
    url: string,
    body: unknown,
    receivedAtMs: number,
    res: ServerResponse,
  ): void {
    const { protocol } = this;
    if (!protocol.handles(method, url)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not scripted"}}');
      return;
    }
    for (const result of protocol.toolResults(body)) {
      if (this.sentAt.has(result.id) && !this.resultAt.has(result.id))
        this.resultAt.set(result.id, receivedAtMs);
    }
    const turn = protocol.isTurnRequest(method, url, body) ? this.script[this.nextTurn] : undefined;
    if (turn !== undefined) this.nextTurn += 1;
    if (turn === undefined || 'text' in turn) {
      protocol.sendText(res, turn?.text ?? scriptEndText, url);
      return;
    }
    const calls = turn.calls.map((call) => toAgentCall(this.agent, call));
    const now = performance.now();
    for (const call of calls) this.sentAt.set(call.id, now);
    protocol.sendCalls(res, calls, url);
  }
}
