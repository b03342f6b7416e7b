// Entry point of the store thread: the one owner of the DuckDB instance (src/store/store-actor.ts).
import { parentPort, workerData } from 'node:worker_threads';
import type { StoreInit } from '../src/shared/store-messages.js';
import { serveStoreActor } from '../src/store/store-actor.js';

if (parentPort === null) throw new Error('store.worker must run as a worker thread');
await serveStoreActor(parentPort, workerData as StoreInit);
