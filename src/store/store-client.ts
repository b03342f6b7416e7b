/**
 * The main thread's handle on the store actor: starts its thread, sends typed queries with a
 * deadline, and closes it. Nothing on the main thread touches DuckDB directly.
 */
import { Worker } from 'node:worker_threads';
import { ProvdError } from '../shared/errors.js';
import type {
  QueryClient,
  QueryMap,
  QueryOptions,
  StoreInbound,
  StoreOpenState,
  StoreOutbound,
} from '../shared/store-protocol.js';

interface Pending {
  resolve: (body: Uint8Array) => void;
  reject: (error: ProvdError) => void;
  timer: NodeJS.Timeout;
}

const workerUrl = new URL('../../workers/store.worker.js', import.meta.url);
const decoder = new TextDecoder();

/**
 * Talks to the store thread; every query settles, by reply, deadline, or the thread's end. `Q` is
 * the union of the query kinds the thread's modules declare (workers/store.worker.ts).
 */
export class StoreClient<Q extends QueryMap> implements QueryClient<Q> {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing: Promise<void> | undefined;
  private exited = false;
  private failed = false;

  private constructor(
    private readonly worker: Worker,
    /** Called once if the store thread ends without being asked to. */
    private readonly onUnexpectedExit: (error: ProvdError) => void,
  ) {
    worker.on('message', (message: StoreOutbound) => {
      if (message.type !== 'reply') return;
      const pending = this.pending.get(message.id);
      if (pending === undefined) return; // its deadline passed: the caller has already been answered
      this.pending.delete(message.id);
      clearTimeout(pending.timer);
      if (message.ok) pending.resolve(message.body);
      else pending.reject(new ProvdError(message.error.code, message.error.message));
    });
    worker.on('error', (error) =>
      this.fail(
        new ProvdError('PROVD_ERR_STORE_STOPPED', `store thread failed: ${error.message}`, { cause: error }),
      ),
    );
    worker.on('exit', (code) => {
      this.exited = true;
      this.fail(new ProvdError('PROVD_ERR_STORE_STOPPED', `store thread exited with code ${code}`));
    });
  }

  /** Starts the store thread with its `workerData` and waits until it has opened (or failed to open) the database. */
  static async start<Q extends QueryMap>(
    init: unknown,
    onUnexpectedExit: (error: ProvdError) => void,
  ): Promise<{ client: StoreClient<Q>; state: StoreOpenState }> {
    const worker = new Worker(workerUrl, { workerData: init });
    const state = await new Promise<StoreOpenState>((resolve, reject) => {
      const onMessage = (message: StoreOutbound): void => {
        if (message.type !== 'opened') return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        resolve(message.state);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
    return { client: new StoreClient<Q>(worker, onUnexpectedExit), state };
  }

  /**
   * Runs one query. At the deadline the actor is told to give up; the query then rejects with
   * PROVD_ERR_STORE_TIMEOUT, at once, or for writes (`verdictMs`) once the actor confirms nothing
   * was stored. A write that committed after all resolves as usual.
   */
  query<K extends keyof Q & string>(
    kind: K,
    params: Q[K]['params'],
    options: QueryOptions,
  ): Promise<Uint8Array> {
    if (this.closing !== undefined || this.exited) {
      return Promise.reject(new ProvdError('PROVD_ERR_STORE_STOPPED', 'the store is closed'));
    }
    const { deadlineMs, verdictMs } = options;
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timedOut = (message: string): void => {
        this.pending.delete(id);
        reject(new ProvdError('PROVD_ERR_STORE_TIMEOUT', message));
      };
      const timer = setTimeout(() => {
        this.post({ type: 'cancel', id });
        if (verdictMs === undefined)
          return timedOut(`store query "${kind}" did not answer within ${deadlineMs} ms`);
        // the actor answers a cancelled write within a statement or two; no answer means it is stuck
        const pending = this.pending.get(id);
        if (pending !== undefined)
          pending.timer = setTimeout(
            () =>
              timedOut(
                `store write "${kind}" did not answer within ${deadlineMs + verdictMs} ms; its outcome is unknown`,
              ),
            verdictMs,
          );
      }, deadlineMs);
      this.pending.set(id, { resolve, reject, timer });
      this.post({ type: 'query', id, kind, params });
    });
  }

  async queryJson<K extends keyof Q & string>(
    kind: K,
    params: Q[K]['params'],
    options: QueryOptions,
  ): Promise<Q[K]['result']> {
    return JSON.parse(decoder.decode(await this.query(kind, params, options))) as Q[K]['result'];
  }

  /** Asks the actor to checkpoint and close, and waits for its thread to end. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve, reject) => {
      if (this.exited) return resolve();
      let closeError: ProvdError | undefined;
      this.worker.on('message', (message: StoreOutbound) => {
        if (message.type === 'closed' && message.error)
          closeError = new ProvdError(message.error.code, message.error.message);
      });
      this.worker.once('exit', () => (closeError ? reject(closeError) : resolve()));
      this.post({ type: 'close' });
    });
    return this.closing;
  }

  private post(message: StoreInbound): void {
    this.worker.postMessage(message);
  }

  private fail(error: ProvdError): void {
    if (this.failed) return;
    this.failed = true;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
    if (this.closing === undefined) this.onUnexpectedExit(error);
  }
}
