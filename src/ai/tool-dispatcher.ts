/**
 * The one dispatcher behind every adapter (MCP server, `provd ai call`, benchmarks): checks a
 * tool's input against its schema, sends the daemon the request it stands for, and returns the
 * daemon's body. It holds no evidence and computes no verdict: the daemon does both.
 */
import { ProvdError } from '../shared/errors.js';
import type { JsonObject } from '../shared/schema/json-object.js';
import type { AiTool, DaemonRequest } from './ai-tool.js';
import { failureOfAnswer, type ToolOutcome } from './tool-outcome.js';

/** One answer of the daemon over HTTP; `body` undefined when it was not JSON. */
export interface DaemonReply {
  status: number;
  body: unknown;
}

/**
 * Sends one request to the daemon (with the configured token). Rejects with a ProvdError
 * PROVD_ERR_CLI_UNREACHABLE saying why when no answer came.
 */
export type DaemonSender = (request: DaemonRequest) => Promise<DaemonReply>;

/** Runs tools of the catalog against one daemon. */
export class ToolDispatcher {
  constructor(private readonly send: DaemonSender) {}

  /** Checks `input`, calls the daemon, and returns its body or why not; throws only on a bug. */
  async call(tool: AiTool, input: unknown): Promise<ToolOutcome> {
    const prepared = tool.prepare(input ?? {});
    if (!prepared.ok)
      return { ok: false, failure: { code: 'invalid_argument', message: prepared.failure.message } };
    let reply: DaemonReply;
    try {
      reply = await this.send(prepared.value);
    } catch (error) {
      if (!(error instanceof ProvdError)) throw error;
      const hint = '; is `provd daemon` running there? (--url or PROVD_URL name it)';
      return { ok: false, failure: { code: error.code, message: error.message + hint } };
    }
    const { status, body } = reply;
    if (status >= 200 && status < 300 && isObject(body)) return { ok: true, body };
    if (status >= 200 && status < 300)
      return {
        ok: false,
        failure: {
          code: 'internal',
          message: 'the daemon answered a body that is not a JSON object',
          status,
        },
      };
    return { ok: false, failure: failureOfAnswer(status, body) };
  }
}

function isObject(body: unknown): body is JsonObject {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}
