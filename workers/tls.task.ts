// Entry point of the TLS pool's one thread (piscina): every stream's state lives here (src/sensor/tls/).
import { TlsReassembler } from '../src/sensor/tls/reassembler.js';
import { announceThread } from '../src/shared/thread-id.js';
import type { TlsTask, TlsTaskResult } from '../src/sensor/tls/tls-pool.js';

announceThread('tls');
const reassembler = new TlsReassembler();

export default function reassemble(task: TlsTask): TlsTaskResult {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const batch =
    task.batch === null ? reassembler.flush(nowNs, task.final) : reassembler.take(task.batch, nowNs);
  return { batch, stats: reassembler.stats() };
}
