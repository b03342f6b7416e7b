/**
 * Well-formed calls the soak makes to set things up and to check what was stored: JSON in, JSON
 * out, with the daemon's token, over a SoakClient. Counting, where a phase wants it, is the caller's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SoakClient, type SoakOutcome, type SoakRequest } from './soak-client.js';

/** A parsed JSON answer. */
export interface JsonReply {
  status: number;
  body: Record<string, unknown>;
  headers: Map<string, string>;
}

/** A client of one daemon that speaks JSON with its token. */
export class SoakApi {
  readonly client: SoakClient;

  constructor(
    private readonly port: () => number,
    private readonly token: () => string,
    private readonly timeoutMs = 60_000,
  ) {
    this.client = new SoakClient(port);
  }

  /** A GET with the token. */
  getRequest(target: string): SoakRequest {
    return { method: 'GET', target, headers: [['Authorization', `Bearer ${this.token()}`]] };
  }

  /** A POST of `body` as `type`, with the token and any more headers. */
  postRequest(target: string, body: Buffer, type: string, headers: [string, string][] = []): SoakRequest {
    return {
      method: 'POST',
      target,
      headers: [['Authorization', `Bearer ${this.token()}`], ['Content-Type', type], ...headers],
      body,
    };
  }

  /** Sends a request and returns the raw outcome. */
  send(request: SoakRequest, timeoutMs = this.timeoutMs): Promise<SoakOutcome> {
    return this.client.send(request, timeoutMs);
  }

  /**
   * GETs `target`; throws unless it is answered 200 with JSON. A 503 (the store busy or its disk
   * full) is asked again after its Retry-After, for up to a minute: a check must not fail for a
   * moment the daemon says it cannot answer.
   */
  async get(target: string): Promise<Record<string, unknown>> {
    const until = Date.now() + 60_000;
    for (;;) {
      const outcome = await this.send(this.getRequest(target));
      if (!('answer' in outcome) || outcome.answer.status !== 503 || Date.now() > until)
        return ok(target, outcome);
      await sleep(Number(outcome.answer.headers.get('retry-after') ?? 1) * 1000);
    }
  }

  /** POSTs a JSON value; throws unless it is answered 200 with JSON. */
  async post(target: string, value: unknown): Promise<Record<string, unknown>> {
    const request = this.postRequest(target, Buffer.from(JSON.stringify(value)), 'application/json');
    return ok(target, await this.send(request));
  }

  /** Every item under `key` of a paged list, following next_cursor (1000 a page). */
  async pageAll(target: string, key: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page: Record<string, unknown> = await this.get(
        `${target}&limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      items.push(...(page[key] as Record<string, unknown>[]));
      cursor = page['next_cursor'] as string | null;
    } while (cursor !== null);
    return items;
  }

  close(): void {
    this.client.close();
  }

  /** The daemon's port now (it stays across restarts). */
  get currentPort(): number {
    return this.port();
  }
}

/** The JSON of an answer, or an error naming what came instead. */
export function jsonOf(outcome: SoakOutcome): JsonReply | undefined {
  if (!('answer' in outcome)) return undefined;
  const { status, headers, body } = outcome.answer;
  try {
    return { status, headers, body: JSON.parse(body.toString()) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

function ok(target: string, outcome: SoakOutcome): Record<string, unknown> {
  if (!('answer' in outcome)) throw new Error(`${target}: no answer (${outcome.error})`);
  const reply = jsonOf(outcome);
  if (reply === undefined || reply.status !== 200)
    throw new Error(`${target}: ${outcome.answer.status} ${outcome.answer.body.subarray(0, 400).toString()}`);
  return reply.body;
}
