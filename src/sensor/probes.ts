/**
 * The probes of each BPF program object: the BPF programs that make each one up, and its PROBE_*
 * number (the index of its loss counters): must match the enums in bpf/<object>.bpf.c. A probe is
 * attached when all of its programs are. `required` probes must attach for the sensor to be ready;
 * the others degrade only their own coverage.
 */
export interface ProbeSpec {
  /** The name reports use. */
  name: string;
  object: string;
  index: number;
  required: boolean;
  programs: readonly string[];
}

const syscall = (name: string): string[] => [`provd_${name}_enter`, `provd_${name}_exit`];
/** An OpenSSL call and its _ex form, entry and return: they attach per target (tls-targets.ts). */
const openSsl = (name: string): string[] => [...syscall(`ssl_${name}`), ...syscall(`ssl_${name}_ex`)];

export const probeSpecs: readonly ProbeSpec[] = [
  // provd_fork binds a bound process's children (capture agents)
  { name: 'exec', object: 'process', index: 0, required: true, programs: ['provd_exec', 'provd_fork'] },
  { name: 'exit', object: 'process', index: 1, required: true, programs: ['provd_exit'] },
  {
    name: 'file_open',
    object: 'file',
    index: 0,
    required: true,
    programs: [...syscall('open'), ...syscall('openat'), ...syscall('openat2')],
  },
  {
    name: 'file_rename',
    object: 'file',
    index: 1,
    required: true,
    programs: [...syscall('rename'), ...syscall('renameat'), ...syscall('renameat2')],
  },
  {
    name: 'file_unlink',
    object: 'file',
    index: 2,
    required: true,
    programs: [...syscall('unlink'), ...syscall('unlinkat')],
  },
  { name: 'connect', object: 'network', index: 0, required: true, programs: syscall('connect') },
  {
    name: 'dns',
    object: 'network',
    index: 1,
    required: true,
    programs: ['provd_dns_sendto', 'provd_dns_sendmsg', 'provd_dns_sendmmsg'],
  },
  { name: 'setuid', object: 'privilege', index: 0, required: true, programs: syscall('setuid') },
  { name: 'setgid', object: 'privilege', index: 1, required: true, programs: syscall('setgid') },
  { name: 'ptrace', object: 'privilege', index: 2, required: true, programs: syscall('ptrace') },
  // loaded at start, attached to each TLS target found: the report's `tls` says where
  { name: 'tls_write', object: 'tls', index: 0, required: false, programs: openSsl('write') },
  { name: 'tls_read', object: 'tls', index: 1, required: false, programs: openSsl('read') },
  // marks bound processes' connects to the daemon (src/sensor/connect-mark.ts); counts nothing in provd_loss
  {
    name: 'connect_mark',
    object: 'connect_mark',
    index: 0,
    required: false,
    programs: ['provd_mark_connect4', 'provd_mark_connect6'],
  },
];
