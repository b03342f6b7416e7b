/**
 * An OTLP/HTTP traces receiver for tests: a node:http server on a loopback port that decodes each
 * request with the official protobuf definitions (opentelemetry-proto's .proto files, as
 * @opentelemetry/otlp-grpc-exporter-base 0.34.0 ships them, read by protobufjs), never with the
 * SDK's own encoder, and answers with the status a test chooses.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type * as Protobuf from 'protobufjs';

const require = createRequire(import.meta.url);
const protobuf = require('protobufjs') as typeof Protobuf;
const protoDir = join(
  dirname(require.resolve('@opentelemetry/otlp-grpc-exporter-base/package.json')),
  'build',
  'protos',
);

/** One received span, its ids in hex and instants as Unix nanoseconds. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
  resource: Record<string, unknown>;
}

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(protoDir, target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
const requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/** Decodes one ExportTraceServiceRequest body into its spans. */
export function decodeTraces(body: Uint8Array): ReceivedSpan[] {
  const message = requestType.toObject(requestType.decode(body), { longs: String, bytes: String }) as {
    resourceSpans?: {
      resource?: { attributes?: KeyValue[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          startTimeUnixNano: string;
          endTimeUnixNano: string;
          attributes?: KeyValue[];
          status?: { code?: number; message?: string };
        }[];
      }[];
    }[];
  };
  const hex = (base64: string | undefined): string => Buffer.from(base64 ?? '', 'base64').toString('hex');
  return (message.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        resource: attributesOf(resourceSpans.resource?.attributes),
      })),
    ),
  );
}

/** A running receiver: what it received, in order, and the status it answers with. */
export interface OtlpReceiver {
  url: string;
  port: number;
  /** Every span of every request answered 2xx, in arrival order. */
  spans: ReceivedSpan[];
  /** Requests received, whatever was answered. */
  requests: number;
  /** The headers of the last request. */
  headers: Record<string, string | string[] | undefined>;
  /** Answered to every request from now on (default 200). */
  status: number;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1:`port` (0: a free one) at path /v1/traces. */
export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const receiver: Omit<OtlpReceiver, 'url' | 'port' | 'close'> = {
    spans: [],
    requests: 0,
    headers: {},
    status: 200,
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests++;
      receiver.headers = request.headers;
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const ok = request.method === 'POST' && request.url === '/v1/traces' && receiver.status < 300;
      if (ok) receiver.spans.push(...decodeTraces(body));
      response.writeHead(request.url === '/v1/traces' ? receiver.status : 404, {
        'content-type': 'application/x-protobuf',
      });
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${bound}/v1/traces`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
