/** The host a benchmark ran on, as every result line reports it (style.md: node version, kernel, CPU). */
import { cpus, release } from 'node:os';

/** Node version, kernel release and CPU model/count, e.g. `{"cpu":"AMD EPYC 7B13 x2", ...}`. */
export interface HostInfo {
  node: string;
  kernel: string;
  cpu: string;
}

export function describeHost(): HostInfo {
  return { node: process.version, kernel: release(), cpu: describeCpu() };
}

/** Names the CPU model and count, e.g. "AMD EPYC 7B13 x2". */
export function describeCpu(): string {
  const all = cpus();
  return `${all[0]?.model.trim() ?? 'unknown'} x${all.length}`;
}
