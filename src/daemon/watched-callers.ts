/**
 * A process a binding covers (an agent's, a watched or recorded command's) must not assert context
 * about itself over HTTP, whatever token it found: the kernel marks its connections to the daemon
 * (src/sensor/connect-mark.ts: source address 127.0.0.2), and a marked request that would store or
 * change anything is refused 403, logged and counted (health's `watched_callers` check). Reads and
 * the gate stay open; what an AI tool writes, labelled `ai_asserted`, is taken (docs/agents.md,
 * "Who may write over HTTP").
 */
import type { Endpoint } from '../shared/http/endpoint.js';
import { errorReply, type HttpReply } from '../shared/http/http-reply.js';
import { parseJsonObject } from '../shared/http/json-body.js';
import { log } from '../shared/log.js';
import { markSourceAddress, type ConnectMarkReport } from '../sensor/connect-mark.js';
import type { HealthCheck } from './daemon-health.js';

/** What the guard needs to know of a request. */
export interface WatchedRequest {
  method: string;
  path: string;
  requestId: string;
  remoteAddress: string;
}

/** The marked source address as uWS writes it: on an IPv4 listener, and v4-mapped on a dual-stack one. */
const markedAddresses = new Set([markSourceAddress, `::ffff:${markSourceAddress}`]);

/** Refuses marked writes, and counts what it refused and what it let through. */
export class WatchedCallers {
  private refused = 0;
  private aiAsserted = 0;

  constructor(private readonly mark: () => ConnectMarkReport) {}

  /** Whether the kernel marked the connection a request came on. */
  static isMarked(remoteAddress: string): boolean {
    return markedAddresses.has(remoteAddress);
  }

  /**
   * The 403 for a marked request `endpoint` refuses before its body is read, or undefined when it
   * goes on (not marked, a read, open, or judged by its body: see `refusalOfBody`).
   */
  refusal(endpoint: Endpoint<never>, request: WatchedRequest): HttpReply | undefined {
    if (endpoint.method === 'GET' || endpoint.watched !== undefined) return undefined;
    if (!WatchedCallers.isMarked(request.remoteAddress)) return undefined;
    return this.refuse(request, 'it stores or changes what the daemon holds');
  }

  /** The 403 for a marked request whose body is not what an AI tool sends, or undefined. */
  refusalOfBody(
    endpoint: Endpoint<never>,
    request: WatchedRequest,
    body: Buffer | undefined,
  ): HttpReply | undefined {
    const judge = endpoint.watched;
    if (typeof judge !== 'function' || !WatchedCallers.isMarked(request.remoteAddress)) return undefined;
    let parsed: Record<string, unknown>;
    try {
      parsed = parseJsonObject(body);
    } catch {
      return undefined; // the route answers 400 and stores nothing
    }
    const why = judge(parsed);
    if (why === null) {
      this.aiAsserted++;
      return undefined;
    }
    return this.refuse(request, why);
  }

  private refuse(request: WatchedRequest, why: string): HttpReply {
    this.refused++;
    const message =
      `${request.method} ${request.path} refused: the request came from a process the daemon watches ` +
      `(an agent's, a watched or recorded command's: the kernel marked its connection), which cannot ` +
      `assert context about itself, whatever token it holds; ${why}`;
    log('warn', 'a write from a watched process was refused', {
      method: request.method,
      path: request.path,
      request_id: request.requestId,
      remote_address: request.remoteAddress,
      why,
    });
    return errorReply('forbidden', message);
  }

  /** health's `watched_callers` check: whether the mark is on (the message says why not), and the counts. */
  check(): HealthCheck {
    const mark = this.mark();
    const counts = {
      mark_address: mark.address,
      connects_marked: mark.marked,
      connects_refused: mark.refused,
      refused_writes: this.refused,
      ai_asserted_writes: this.aiAsserted,
    };
    if (mark.active) return { status: 'ok', ...counts };
    return {
      status: 'unavailable',
      message: `writes of watched processes over HTTP are not told apart: ${mark.why ?? 'the mark is off'}`,
      ...counts,
    };
  }
}
