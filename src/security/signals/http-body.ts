/**
 * The text of a TLS event's HTTP body, from its `http` attrs as the sensor keeps them
 * (sensor/tls/message-record.ts: `body` as UTF-8 text or base64, the first 16 KiB) or a producer
 * sends them: decoded from base64 and from its Content-Encoding (gzip, deflate, br; what a cut
 * body holds is decoded up to its cut), at most 4 MiB of text.
 */
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/** A body as text, and whether it is only the start of the body that was sent. */
export interface HttpBodyText {
  text: string;
  cut: boolean;
}

/** Most bytes a body decodes to: a usage object never needs more. */
const maxDecodedBytes = 4 * 1024 * 1024;

type Decoder = (bytes: Buffer) => Buffer;

const gzip: Decoder = (bytes) =>
  gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: maxDecodedBytes });
// HTTP's "deflate" is meant to be zlib-wrapped; some servers send it raw
const deflate: Decoder = (bytes) => {
  const options = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: maxDecodedBytes };
  try {
    return inflateSync(bytes, options);
  } catch {
    return inflateRawSync(bytes, options);
  }
};
const brotli: Decoder = (bytes) =>
  brotliDecompressSync(bytes, {
    finishFlush: constants.BROTLI_OPERATION_FLUSH,
    maxOutputLength: maxDecodedBytes,
  });

const decoders: Readonly<Record<string, Decoder | null>> = {
  identity: null,
  gzip,
  'x-gzip': gzip,
  deflate,
  br: brotli,
};

/** The body of `http` as text, or null when it holds none, or one it cannot decode. */
export function httpBodyText(http: Record<string, unknown>): HttpBodyText | null {
  const body = http['body'];
  if (typeof body !== 'string') return null;
  const cut = http['body_truncated'] === true || http['body_complete'] === false;
  const base64 = http['body_encoding'] === 'base64';
  const decoder = decoders[contentEncoding(http['headers'])];
  if (decoder === undefined) return null;
  if (decoder === null) return { text: base64 ? Buffer.from(body, 'base64').toString('utf8') : body, cut };
  try {
    // kept as text only when the bytes were UTF-8: encoding the text again gives them back
    return { text: decoder(Buffer.from(body, base64 ? 'base64' : 'utf8')).toString('utf8'), cut };
  } catch {
    return null;
  }
}

/** The Content-Encoding named in kept headers (any letter case), `identity` when none. */
function contentEncoding(headers: unknown): string {
  if (typeof headers !== 'object' || headers === null) return 'identity';
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'content-encoding' && typeof value === 'string')
      return value.trim().toLowerCase() || 'identity';
  }
  return 'identity';
}
