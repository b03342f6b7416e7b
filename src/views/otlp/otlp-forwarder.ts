/**
 * The OTLP export on the main thread (--otlp-endpoint): a loop that asks the store which runs have
 * sealed evidence not yet acknowledged, takes each run's pages from the store as the JSON bytes it
 * wrote, passes them untouched to the exporter thread (workers/otlp.worker.ts), and has the store
 * move the run's cursor once the endpoint acknowledged a page. The queue is the store itself: a page
 * is in flight one at a time, nothing waits in memory, so nothing is dropped when the endpoint is
 * down; a page is sent until acknowledged (at least once, across restarts), and one the endpoint
 * refuses for good is counted (`otlp` rejected_spans) and passed. Ingest never waits on any of it.
 */
import { Worker } from 'node:worker_threads';
import type { QueryClient } from '../../shared/store-protocol.js';
import { log } from '../../shared/log.js';
import type { OtlpSendOutcome } from './otlp-sender.js';
import type { OtlpKinds } from './otlp-store.js';

const workerUrl = new URL('../../../workers/otlp.worker.js', import.meta.url);
/** Runs asked for at a time; the rest are found on the next round. */
const runsPerRound = 16;
/** Pages of one run in a round: a run with a long backlog does not hold the others back. */
const pagesPerRun = 16;
const storeDeadlineMs = 60_000;
/** A page's export, the SDK's own retries included (5 tries of 10 s at most, and their waits). */
const sendDeadlineMs = 120_000;
const firstBackoffMs = 1000;
const maxBackoffMs = 60_000;
const nullBytes = new TextEncoder().encode('null');

/** How often the loop looks for newly sealed runs when it found none. */
export const defaultOtlpPollMs = 1000;

/** The export's state as health's `checks.otlp` shows it. */
export type OtlpCheck = {
  status: 'ok' | 'failed';
  /** The endpoint, without its query string. */
  endpoint: string;
  /** Runs with sealed evidence not yet all acknowledged, as of the last round (at most 16 counted). */
  pending_runs: number;
  /** Since this start; the store's `otlp` producer counters hold the totals. */
  sent_spans: number;
  rejected_spans: number;
  failed_exports: number;
  last_error: string | null;
  last_sent_at: string | null;
};

/** Sends sealed runs to an OTLP/HTTP endpoint until stopped. */
export class OtlpForwarder {
  private worker: Worker;
  private stopped = false;
  private wake: () => void = () => undefined;
  private readonly loop: Promise<void>;
  private nextId = 1;
  private readonly answers = new Map<number, (outcome: OtlpSendOutcome) => void>();
  private readonly state: OtlpCheck;

  constructor(
    private readonly store: QueryClient<OtlpKinds>,
    url: URL,
    private readonly pollMs = defaultOtlpPollMs,
  ) {
    this.state = {
      status: 'ok',
      endpoint: `${url.origin}${url.pathname}`,
      pending_runs: 0,
      sent_spans: 0,
      rejected_spans: 0,
      failed_exports: 0,
      last_error: null,
      last_sent_at: null,
    };
    this.worker = this.startWorker(url);
    this.loop = this.run();
  }

  /** The exporter thread; one that ends unasked is started again (its page is sent again). */
  private startWorker(url: URL): Worker {
    const worker = new Worker(workerUrl, { workerData: { url: url.href } });
    worker.on('message', (outcome: OtlpSendOutcome) => {
      this.answers.get(outcome.id)?.(outcome);
      this.answers.delete(outcome.id);
    });
    worker.on('error', (error) => this.failAll(`the exporter thread failed: ${error.message}`));
    worker.on('exit', (code) => {
      this.failAll(`the exporter thread exited with code ${code}`);
      if (this.stopped) return;
      log('error', 'otlp exporter thread ended; starting it again', { code });
      this.worker = this.startWorker(url);
    });
    return worker;
  }

  /** Health's `checks.otlp`. */
  check(): OtlpCheck {
    return { ...this.state };
  }

  /** Stops after the page in flight (its cursor moves only if it was acknowledged) and ends the thread. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    this.failAll('the daemon is stopping');
    await this.loop;
    await this.worker.terminate();
  }

  private async run(): Promise<void> {
    let backoffMs = firstBackoffMs;
    while (!this.stopped) {
      let failed: string | null = null;
      try {
        failed = await this.round();
      } catch (error) {
        failed = `the store did not answer: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (failed === null) {
        backoffMs = firstBackoffMs;
        if (this.state.pending_runs === 0) await this.sleep(this.pollMs);
        continue;
      }
      if (this.stopped) return;
      this.state.status = 'failed';
      this.state.failed_exports++;
      this.state.last_error = failed;
      log('warn', 'otlp export failed; trying again', { error: failed, retry_in_ms: backoffMs });
      await this.store.queryJson('otlpFailed', {}, { deadlineMs: storeDeadlineMs }).catch(() => undefined);
      await this.sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
    }
  }

  /** Sends every page of up to 16 pending runs; resolves with what failed, or null. */
  private async round(): Promise<string | null> {
    const pending = await this.store.queryJson(
      'otlpPending',
      { limit: runsPerRound },
      { deadlineMs: storeDeadlineMs },
    );
    this.state.pending_runs = pending.length;
    for (const { run_id: run } of pending) {
      for (let pages = 0; pages < pagesPerRun; pages++) {
        if (this.stopped) return null;
        const page = await this.store.query('otlpPage', { run }, { deadlineMs: storeDeadlineMs });
        if (isNull(page)) break; // sent up to its latest checkpoint
        const answer = await this.send(page);
        if (answer.outcome === 'failed') return answer.message;
        await this.store.queryJson('otlpAck', answer.ack, { deadlineMs: storeDeadlineMs });
        if (answer.outcome === 'rejected') {
          this.state.rejected_spans += answer.ack.spans;
          this.state.last_error = answer.message;
          log('error', 'otlp endpoint refused a page; it is counted and passed', {
            run,
            spans: answer.ack.spans,
            error: answer.message,
          });
        } else {
          this.state.sent_spans += answer.ack.spans;
          this.state.status = 'ok';
          this.state.last_sent_at = new Date().toISOString();
        }
        if (answer.ack.done_chain_index !== null) break;
      }
    }
    return null;
  }

  private send(page: Uint8Array): Promise<OtlpSendOutcome> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.answers.delete(id);
        resolve({
          id,
          outcome: 'failed',
          message: `no answer from the exporter within ${sendDeadlineMs} ms`,
        });
      }, sendDeadlineMs);
      this.answers.set(id, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
      this.worker.postMessage({ id, page }); // copied, not transferred: the bytes may share a buffer
    });
  }

  private failAll(message: string): void {
    for (const [id, answer] of this.answers) answer({ id, outcome: 'failed', message });
    this.answers.clear();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function isNull(bytes: Uint8Array): boolean {
  return bytes.length === nullBytes.length && bytes.every((byte, i) => byte === nullBytes[i]);
}
