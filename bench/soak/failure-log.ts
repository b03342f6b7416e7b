/**
 * The soak's failures, each with the request that caused it: one JSON line per failure in
 * `failures.ndjson`, the request's exact bytes in `requests/<n>.http` (bounded in count and size,
 * the token replaced by `<token>`), and a summary grouped by what failed and where.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, createWriteStream, mkdirSync, writeFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { encodeRequest } from './soak-client.js';
import type { Sent } from './phase-tally.js';

const maxSavedRequests = 300;
const maxSavedBytes = 8 * 1024 * 1024;

/** One group of the summary: failures of one kind on one operation, and the first one's words. */
interface FailureGroup {
  count: number;
  detail: string;
  origin: string | undefined;
}

/** Collects failures into a directory of the run. */
export class FailureLog {
  private saved = 0;
  private readonly groups = new Map<string, FailureGroup>();
  readonly file: string;
  private readonly requests: WriteStream;

  constructor(
    private readonly dir: string,
    private readonly token: string,
  ) {
    mkdirSync(join(dir, 'requests'), { recursive: true });
    this.file = join(dir, 'failures.ndjson');
    writeFileSync(this.file, '');
    this.requests = createWriteStream(join(dir, 'requests.ndjson'));
  }

  /**
   * Writes one line per request to `requests.ndjson`: when it started, how long it took, what came
   * back. A stall shows there as the requests in flight around it.
   */
  journal(phase: string, sent: Sent): void {
    const { outcome, request } = sent;
    const started = Date.now() - outcome.ms;
    const result = 'answer' in outcome ? outcome.answer.status : outcome.error;
    const entry = {
      phase,
      started,
      ms: Math.round(outcome.ms),
      result,
      method: request.method,
      target: request.target.slice(0, 200),
      body_bytes: request.body?.length ?? 0,
      origin: sent.origin,
    };
    this.requests.write(JSON.stringify(entry) + '\n');
  }

  /** Flushes the request journal. */
  close(): Promise<void> {
    return new Promise((resolve) => this.requests.end(resolve));
  }

  /** Logs a failure of `kind` with the request that caused it. */
  add(phase: string, kind: string, detail: string, sent: Sent | null): void {
    this.write(phase, kind, detail, sent, 'failure');
  }

  /** Logs an observation that fails nothing (a valid-looking request refused), for a person to judge. */
  note(phase: string, kind: string, detail: string, sent: Sent | null): void {
    this.write(phase, kind, detail, sent, 'note');
  }

  private write(phase: string, kind: string, detail: string, sent: Sent | null, severity: string): void {
    const entry: Record<string, unknown> = { severity, phase, kind, detail };
    let where = '';
    if (sent !== null) {
      const bytes = this.masked(encodeRequest(sent.request, '<port>'));
      const body = sent.request.body;
      where = `${sent.request.method} ${sent.request.target.split('?')[0]?.slice(0, 80)}`;
      Object.assign(entry, {
        origin: sent.origin,
        method: sent.request.method,
        target: sent.request.target.slice(0, 2000),
        body_bytes: body?.length ?? 0,
        body_sha256: body === undefined ? null : createHash('sha256').update(body).digest('hex'),
        body_head: body?.subarray(0, 400).toString('latin1') ?? null,
        ms: Math.round(sent.outcome.ms),
      });
      if (this.saved < maxSavedRequests && bytes.length <= maxSavedBytes) {
        const file = join(this.dir, 'requests', `${++this.saved}.http`);
        writeFileSync(file, bytes);
        entry['request_file'] = file;
      }
    }
    appendFileSync(this.file, JSON.stringify(entry) + '\n');
    const key = `${severity} ${phase} ${kind} ${where}`;
    const group = this.groups.get(key);
    if (group === undefined) this.groups.set(key, { count: 1, detail, origin: sent?.origin });
    else group.count++;
  }

  /** One line per group: how many, and the first one's detail and origin. */
  summary(): string[] {
    return [...this.groups.entries()].map(
      ([key, { count, detail, origin }]) =>
        `${count} x ${key}: ${detail.slice(0, 240)}` + (origin === undefined ? '' : ` [${origin}]`),
    );
  }

  /** The request with the daemon's token replaced, so a saved file can be resent to another daemon. */
  private masked(bytes: Buffer): Buffer {
    const token = Buffer.from(this.token);
    const parts: Buffer[] = [];
    let at = 0;
    for (let hit = bytes.indexOf(token); hit !== -1; hit = bytes.indexOf(token, at)) {
      parts.push(bytes.subarray(at, hit), Buffer.from('<token>'));
      at = hit + token.length;
    }
    parts.push(bytes.subarray(at));
    return Buffer.concat(parts);
  }
}
