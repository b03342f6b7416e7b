/**
 * The fuzz phase's opening sweep: before the random requests, one two-line body per producer
 * format, string field of its first line and escaped control character (a CR, a CRLF, a NUL, ...):
 * the shape that once failed a whole request for one character (issue 41), which random bodies hit
 * too rarely. Each is well-formed and must be answered 200, its bad lines counted apart.
 */
import type { NdjsonCorpus, ProducerFormat } from './ndjson-corpus.js';

/** Escapes as a JSON encoder writes them: line ends first, then what else a reader may split on. */
const escapes = ['\\r', 'a\\rb', '\\r\\n', '\\n', '\\u0000', '\\u001e', '\\u0085', '\\ufeff'];

/** One sweep body: what it is, and how it was made. */
export interface SweepBody {
  format: ProducerFormat;
  body: Buffer;
  note: string;
}

/** Every sweep body for `corpus`: its first line of each format, broken in each string field. */
export function sweepBodies(corpus: NdjsonCorpus): SweepBody[] {
  const bodies: SweepBody[] = [];
  for (const format of ['native', 'tetragon', 'falco'] as const) {
    const [line, second] = [corpus[format][0]!, corpus[format][1] ?? corpus[format][0]!];
    for (let at = line.indexOf('":"'); at !== -1; at = line.indexOf('":"', at + 1)) {
      const start = at + 3;
      const field = line.slice(line.lastIndexOf('"', at - 1) + 1, at);
      for (const escape of escapes) {
        const broken = line.slice(0, start) + escape + line.slice(start);
        bodies.push({
          format,
          body: Buffer.from(`${broken}\n${second}\n`),
          note: `sweep: ${format} line 1, ${escape} at the start of ${field}, then a good line`,
        });
      }
    }
  }
  return bodies;
}
