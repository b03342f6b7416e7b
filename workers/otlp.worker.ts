// Entry point of the OTLP exporter thread (--otlp-endpoint): builds and sends the pages the main
// thread passes on from the store (src/views/otlp/otlp-sender.ts), off the main thread and the store's.
import { parentPort, workerData } from 'node:worker_threads';
import { announceThread } from '../src/shared/thread-id.js';
import { serveOtlpSender } from '../src/views/otlp/otlp-sender.js';

if (parentPort === null) throw new Error('otlp.worker must run as a worker thread');
announceThread('otlp');
serveOtlpSender(parentPort, (workerData as { url: string }).url);
