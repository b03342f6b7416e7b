/** Runs the chunks of one input through the ingest endpoint, a bounded number at a time, and adds up the answers. */
import { randomUUID } from 'node:crypto';
import { sendChunk, type IngestAnswer } from './ingest-request.js';
import type { NdjsonChunk } from './ndjson-chunker.js';

/** Most rejected lines kept for printing: the first ones of the input, by line number. */
export const maxShownErrors = 100;

/** Running totals of one upload; the progress line reads them while it runs. */
export interface IngestTally {
  chunksRead: number;
  linesSent: number;
  bytesSent: number;
  /** Requests the daemon answered 200 (one per chunk; resends not counted). */
  requests: number;
  bytesCommitted: number;
  linesCommitted: number;
  /** Lines 1..N of the input are all committed. */
  committedPrefix: number;
  accepted: number;
  rejected: number;
  pending: number;
  errors: IngestAnswer['errors'];
  /** Why the upload stopped early; undefined when every chunk was committed. */
  failure: string | undefined;
}

/** Where to send, how many requests at once. */
export interface UploadOptions {
  baseUrl: string;
  format: string;
  concurrency: number;
}

/** An empty tally, to hand to `uploadChunks` and the progress line. */
export function newTally(): IngestTally {
  return {
    chunksRead: 0,
    linesSent: 0,
    bytesSent: 0,
    requests: 0,
    bytesCommitted: 0,
    linesCommitted: 0,
    committedPrefix: 0,
    accepted: 0,
    rejected: 0,
    pending: 0,
    errors: [],
    failure: undefined,
  };
}

/**
 * Sends every chunk, at most `concurrency` in flight; each worker pulls the next chunk only when its
 * request is done, so at most `concurrency` chunks (plus the one being cut) are in memory. The first
 * chunk that fails stops the others from starting or retrying; requests already sent finish, so
 * the tally says exactly what the daemon committed.
 */
export async function uploadChunks(
  chunks: AsyncGenerator<NdjsonChunk, void, undefined>,
  options: UploadOptions,
  tally: IngestTally,
): Promise<IngestTally> {
  const stop = new AbortController();
  const target = {
    baseUrl: options.baseUrl,
    format: options.format,
    keyPrefix: `provd-ingest-${randomUUID()}`,
    signal: stop.signal,
  };
  const fail = (reason: string): void => {
    tally.failure ??= reason;
    stop.abort();
  };
  const done = new Map<number, number>(); // committed chunks past the prefix: index → lines
  let nextInPrefix = 0;

  const worker = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      let next: IteratorResult<NdjsonChunk, void>;
      try {
        next = await chunks.next();
      } catch (error) {
        return fail(`cannot read the input: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (next.done === true || stop.signal.aborted) return;
      const chunk = next.value;
      tally.chunksRead++;
      tally.linesSent += chunk.lines;
      tally.bytesSent += chunk.bytes.length;
      const outcome = await sendChunk(target, chunk);
      if (!outcome.ok) return fail(outcome.reason);
      add(tally, outcome.answer, chunk);
      done.set(chunk.index, chunk.lines);
      for (let lines = done.get(nextInPrefix); lines !== undefined; lines = done.get(nextInPrefix)) {
        done.delete(nextInPrefix++);
        tally.committedPrefix += lines;
      }
    }
  };

  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await chunks.return(undefined); // closes the input when we stopped early
  return tally;
}

function add(tally: IngestTally, answer: IngestAnswer, chunk: NdjsonChunk): void {
  tally.requests++;
  tally.bytesCommitted += chunk.bytes.length;
  tally.linesCommitted += chunk.lines;
  tally.accepted += answer.accepted;
  tally.rejected += answer.rejected;
  tally.pending += answer.pending;
  if (answer.errors.length === 0) return;
  // chunks finish out of order: keep the lowest line numbers, not the first answers
  tally.errors = [...tally.errors, ...answer.errors].sort((a, b) => a.line - b.line).slice(0, maxShownErrors);
}
