/**
 * Reads one HTTP/1.1 answer out of the bytes a connection received so far: the head, then a body
 * framed by Content-Length, by chunks, or by the connection's close. Written for the soak, whose
 * requests are hostile on purpose and whose answers must be read exactly, byte for byte.
 */

/** One answer as it came off the wire. */
export interface HttpAnswer {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
  /** The server asked to close the connection after this answer. */
  closes: boolean;
}

/** An answer parsed from the front of a buffer, and how many bytes it took. */
interface Parsed {
  answer: HttpAnswer;
  used: number;
}

/** Not complete yet, but its length is known: no use parsing again before `bytes` arrived. */
interface Incomplete {
  waitFor: number;
}

const headEnd = Buffer.from('\r\n\r\n');

/**
 * The answer at the front of `bytes`, or undefined while more bytes are needed. `ended` says the
 * connection closed, which completes a body framed by the close. `isHead` answers carry no body.
 */
export function parseAnswer(bytes: Buffer, ended: boolean, isHead: boolean): Parsed | Incomplete | undefined {
  const end = bytes.indexOf(headEnd);
  if (end === -1) return undefined;
  const lines = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? NaN);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP status line: ${JSON.stringify(lines[0])}`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const closes = /\bclose\b/i.test(headers.get('connection') ?? '');
  const start = end + headEnd.length;
  const answer = (body: Buffer): HttpAnswer => ({ status, headers, body, closes });
  if (status >= 100 && status < 200) {
    // an interim answer: the real one follows it
    const next = parseAnswer(bytes.subarray(start), ended, isHead);
    if (next === undefined) return undefined;
    return 'answer' in next
      ? { answer: next.answer, used: start + next.used }
      : { waitFor: start + next.waitFor };
  }
  if (isHead || status === 204 || status === 304) return { answer: answer(Buffer.alloc(0)), used: start };
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const chunked = readChunks(bytes, start);
    return chunked === undefined ? undefined : { answer: answer(chunked.body), used: chunked.used };
  }
  const length = headers.get('content-length');
  if (length !== undefined) {
    const size = Number(length);
    if (bytes.length - start < size) return { waitFor: start + size };
    return { answer: answer(bytes.subarray(start, start + size)), used: start + size };
  }
  // framed by the close
  return ended ? { answer: answer(bytes.subarray(start)), used: bytes.length } : undefined;
}

/** Decodes a chunked body that starts at `start`; undefined until its last chunk arrived. */
function readChunks(bytes: Buffer, start: number): { body: Buffer; used: number } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) throw new Error('a malformed chunk size in the answer');
    at = lineEnd + 2;
    if (size === 0) {
      // trailers, if any, end with an empty line
      const trailerEnd = bytes.indexOf('\r\n', at);
      if (trailerEnd === -1) return undefined;
      if (trailerEnd === at) return { body: Buffer.concat(parts), used: at + 2 };
      const allEnd = bytes.indexOf(headEnd, at);
      return allEnd === -1 ? undefined : { body: Buffer.concat(parts), used: allEnd + 4 };
    }
    if (bytes.length < at + size + 2) return undefined;
    parts.push(bytes.subarray(at, at + size));
    at += size + 2;
  }
}
