/** The progress line of `provd ingest` on stderr: redrawn in place on a terminal, logged every few seconds otherwise. */
import type { Writable } from 'node:stream';
import type { IngestTally } from './ingest-upload.js';

const ttyIntervalMs = 250;
const logIntervalMs = 5_000;

/** Reports an upload's tally while it runs; `stop` ends the line cleanly. */
export class IngestProgress {
  private readonly timer: NodeJS.Timeout;
  private drawn = '';
  private readonly startedAt = performance.now();

  constructor(
    private readonly tally: IngestTally,
    private readonly stderr: Writable,
    private readonly isTty: boolean,
  ) {
    this.timer = setInterval(() => this.tick(), isTty ? ttyIntervalMs : logIntervalMs);
    this.timer.unref();
  }

  /** Stops the timer; on a terminal, draws the final state and ends the line. */
  stop(): void {
    clearInterval(this.timer);
    if (this.drawn === '') return;
    this.tick();
    this.stderr.write('\n');
  }

  private tick(): void {
    // a one-chunk input finishes in one request: a progress line would only flicker
    if (this.isTty && this.tally.chunksRead < 2) return;
    const line = this.describe();
    if (!this.isTty) return void this.stderr.write(line + '\n');
    if (line === this.drawn) return;
    this.stderr.write(`\r${line}\x1b[K`);
    this.drawn = line;
  }

  private describe(): string {
    const seconds = Math.max((performance.now() - this.startedAt) / 1000, 0.001);
    const { linesSent, accepted, rejected, bytesSent } = this.tally;
    const rate = (bytesSent / 1e6 / seconds).toFixed(1);
    return `provd ingest: ${linesSent} lines read, ${accepted} accepted, ${rejected} rejected, ${rate} MB/s`;
  }
}
