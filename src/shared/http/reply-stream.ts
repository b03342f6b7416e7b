/**
 * An answer written as it is made (POST /v1/record's NDJSON variant): the status and headers go
 * out first, then chunks, then the route's final reply as the last chunk. Writing never blocks
 * and never buffers without bound: what a slow or gone client cannot take is dropped, and
 * the writer counts it.
 */

export interface ReplyStream {
  /** Writes one chunk; false when it was dropped (the client is gone, or is over the backpressure bound). */
  write(text: string): boolean;
}

/** Opens the stream with status 200 and this content type; once only, before the final reply. */
export type OpenReplyStream = (contentType: string) => ReplyStream;
