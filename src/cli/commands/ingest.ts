/** `provd ingest FILE|-`: streams an NDJSON file or stdin through the daemon's ingest endpoint. */
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { WriteStream } from 'node:tty';
import { Command, Option } from 'clipanion';
import { ProvdError } from '../../shared/errors.js';
import { ingestFormats } from '../../model/event.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { IngestProgress } from '../ingest-progress.js';
import { newTally, uploadChunks, type IngestTally } from '../ingest-upload.js';
import { chunkNdjson, orEmptyChunk } from '../ndjson-chunker.js';

const defaultChunkBytes = 8 * 1024 * 1024;
const defaultConcurrency = 2;
const maxConcurrency = 64;
const readBufferBytes = 256 * 1024;

export class IngestCommand extends DaemonClientCommand {
  static override paths = [['ingest']];

  static override usage = Command.Usage({
    description: 'Send an NDJSON telemetry file to the daemon',
    details: `
      Streams FILE (or stdin for \`-\`) to \`POST /v1/telemetry/ingest\` in requests of about the
      chunk size, each ending at a line end, a few requests in flight at once. Each request carries
      an \`Idempotency-Key\`, so a resend is never stored twice: when the daemon is busy (HTTP 429)
      the same request is sent again after \`Retry-After\`; after a network error or a 503 it is
      resent a few times with growing waits (about 7.5 s in all, enough for a daemon restart).
      Rejected lines are printed to stderr with their line numbers in FILE (the first 100). Prints
      one JSON summary line on stdout: what the daemon accepted and rejected. An empty input still
      sends one empty request, so a daemon that is not there fails it too.

      Exit code 0 when every line reached the daemon and it stored at least one (or the input held
      none), 1 when the daemon stored nothing of a non-empty input (every line rejected), refused
      a request, or the transfer failed (stderr says what was committed before), 2 for bad usage
      (unreadable FILE, bad option or \`--url\`).
    `,
    examples: [
      ['Ingest a Tetragon export', '$0 ingest --format tetragon tetragon.jsonl'],
      ['Ingest from a pipe', 'zcat events.jsonl.gz | $0 ingest -'],
    ],
  });

  file = Option.String({ name: 'FILE|-' });
  format = Option.String('--format', 'auto', { description: `input format: ${ingestFormats.join(', ')}` });
  chunkBytes = Option.String('--chunk-bytes', String(defaultChunkBytes), {
    description: 'target request body size in bytes (default 8 MiB); a longer line goes alone',
  });
  concurrency = Option.String('--concurrency', String(defaultConcurrency), {
    description: 'requests in flight at once (default 2)',
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    let options: { chunkBytes: number; concurrency: number };
    let input: Readable;
    try {
      options = this.checkOptions();
      input = await this.openInput();
    } catch (error) {
      return this.refuseUsage(error);
    }

    const startedAt = performance.now();
    const tally = newTally();
    const progress = new IngestProgress(tally, stderr, (stderr as Partial<WriteStream>).isTTY === true);
    try {
      const chunks = orEmptyChunk(chunkNdjson(input, options.chunkBytes));
      await uploadChunks(chunks, { ...options, baseUrl, format: this.format }, tally);
    } finally {
      progress.stop();
      input.destroy();
    }
    const seconds = (performance.now() - startedAt) / 1000;

    for (const { line, code, message } of tally.errors) stderr.write(`line ${line}: ${code}: ${message}\n`);
    const unshown = tally.rejected - tally.errors.length;
    if (unshown > 0) stderr.write(`provd: ${unshown} more rejected lines not shown\n`);
    if (tally.failure !== undefined) {
      stderr.write(`provd: ${tally.failure}\nprovd: ${describeCommitted(tally)}\n`);
      return 1;
    }
    stdout.write(JSON.stringify(summarize(tally, seconds)) + '\n');
    // blank lines are no events: an input of only those holds nothing to store, like an empty one
    if (tally.accepted + tally.rejected === 0)
      stderr.write('provd: the input holds no lines: nothing to store\n');
    else if (tally.accepted === 0) {
      stderr.write(`provd: nothing was stored: the daemon rejected all ${plural(tally.rejected, 'line')}\n`);
      return 1;
    }
    return 0;
  }

  /** The checked numeric options, or PROVD_ERR_CONFIG_INVALID naming the option and its rule. */
  private checkOptions(): { chunkBytes: number; concurrency: number } {
    if (!(ingestFormats as readonly string[]).includes(this.format))
      throw invalid(`--format must be one of ${ingestFormats.join(', ')}, got "${this.format}"`);
    const chunkBytes = parseCount(this.chunkBytes);
    if (chunkBytes === undefined)
      throw invalid(`--chunk-bytes must be an integer >= 1, got "${this.chunkBytes}"`);
    const concurrency = parseCount(this.concurrency);
    if (concurrency === undefined || concurrency > maxConcurrency)
      throw invalid(`--concurrency must be an integer 1..${maxConcurrency}, got "${this.concurrency}"`);
    return { chunkBytes, concurrency };
  }

  /** Stdin for `-`, else the file opened now, so a missing or unreadable one is a usage error. */
  private async openInput(): Promise<Readable> {
    if (this.file === '-') return this.context.stdin;
    try {
      const handle = await open(this.file, 'r');
      if ((await handle.stat()).isDirectory()) {
        await handle.close();
        throw invalid(`FILE "${this.file}" is a directory`);
      }
      return handle.createReadStream({ highWaterMark: readBufferBytes });
    } catch (error) {
      if (error instanceof ProvdError) throw error;
      throw invalid(
        `cannot read FILE "${this.file}": ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

function invalid(message: string): ProvdError {
  return new ProvdError('PROVD_ERR_CONFIG_INVALID', message);
}

/** A positive safe integer from its decimal form, else undefined. */
function parseCount(value: string): number | undefined {
  const number = Number(value);
  return /^\d+$/.test(value) && Number.isSafeInteger(number) && number >= 1 ? number : undefined;
}

/** What the daemon committed before a failure, so the user knows what a rerun would repeat. */
function describeCommitted(tally: IngestTally): string {
  const { linesSent, linesCommitted, accepted, rejected, requests, committedPrefix } = tally;
  if (requests === 0 && linesSent === 0)
    return 'the input holds no lines, and the daemon did not take the empty request';
  if (requests === 0)
    return `nothing was stored: the daemon committed none of the ${plural(linesSent, 'line')} read`;
  const resume =
    committedPrefix > 0
      ? `; lines 1..${committedPrefix} are all in, so a rerun may start at line ${committedPrefix + 1}`
      : '';
  return (
    `the daemon committed ${linesCommitted} of the ${plural(linesSent, 'line')} read ` +
    `(${accepted} accepted, ${rejected} rejected) in ${plural(requests, 'request')}${resume}`
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The JSON summary line of a completed upload. */
function summarize(tally: IngestTally, seconds: number) {
  return {
    accepted: tally.accepted,
    rejected: tally.rejected,
    pending: tally.pending,
    requests: tally.requests,
    bytes: tally.bytesCommitted,
    seconds: Math.round(seconds * 1000) / 1000,
    events_per_second: Math.round(tally.accepted / Math.max(seconds, 0.001)),
    errors_shown: tally.errors.length,
  };
}
