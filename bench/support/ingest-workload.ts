/**
 * The ingest benchmark's workload: deterministic native-format NDJSON (src/ingest/native-format.md)
 * spread over a fixed set of runs, each with its own cgroup. The same seed always renders the same
 * bytes, so the pipeline and its baselines see identical rows, run after run.
 *
 * Mix per event: execve 15%, file_open 35% (2% of them credential paths, which become secret_path),
 * file_write 20% (with bytes), network_connect 15% (3% to 169.254.169.254, 25% to 10/8) and
 * dns_query 15%. Lines are 200-300 bytes; times advance through the part's span with 0, 3, 6 or 9
 * fraction digits, a few with a +00:00 offset instead of Z; a fifth of the cgroup ids are sent as
 * JSON integers, the rest as decimal strings.
 */

/** One run of the workload: its binding keys, and whether the benchmark binds it before ingesting. */
export interface WorkloadRun {
  runId: string;
  toolCallId: string;
  cgroupId: string;
  bound: boolean;
  /** The first pid of the run's processes. */
  basePid: number;
}

/** A stretch of events: which seed renders them, how many, and the time span they cover. */
export interface WorkloadPart {
  seed: number;
  events: number;
  /** Unix seconds of the first event. */
  startS: number;
  /** The part's events are spread evenly over this many seconds, with some jitter. */
  spanS: number;
}

/** 2026-01-01T00:00:00Z, the start of the workload's timeline. */
export const workloadEpochS = Date.UTC(2026, 0, 1) / 1000;

/** `count` runs, of which the first `boundCount` are to be bound; each has a distinct u64-style cgroup id. */
export function workloadRuns(count: number, boundCount: number): WorkloadRun[] {
  return Array.from({ length: count }, (_, index) => ({
    runId: `bench-run-${String(index).padStart(2, '0')}`,
    toolCallId: `bench-call-${String(index).padStart(2, '0')}`,
    cgroupId: String(4_294_967_296 + 7_919 * (index + 1)),
    bound: index < boundCount,
    basePid: 20_000 + index * 100,
  }));
}

/** A small seeded PRNG (mulberry32): uniform numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const execs: readonly (readonly string[])[] = [
  ['/usr/bin/git', 'git', 'status', '--short', '--branch'],
  ['/usr/bin/node', 'node', 'node_modules/.bin/tsc', '-p', 'tsconfig.json'],
  ['/bin/sh', 'sh', '-c', 'npm test -- --reporter dot'],
  ['/usr/bin/python3', 'python3', '-m', 'pytest', '-q', 'tests/unit'],
  ['/usr/bin/curl', 'curl', '-fsSL', 'https://registry.npmjs.org/typescript'],
  ['/usr/bin/rg', 'rg', '--json', 'TODO', 'src'],
];
const secretPaths = [
  '/root/.aws/credentials',
  '/home/agent/.ssh/id_ed25519',
  '/home/agent/.config/gcloud/credentials.db',
  '/workspace/project/.env',
  '/home/agent/.kube/config',
];
const sourceDirs = ['src/ingest', 'src/store', 'src/daemon', 'test/telemetry', 'node_modules/.cache'];
const sourceExts = ['.ts', '.json', '.md', '.js'];
const dnsNames = [
  'api.github.com',
  'registry.npmjs.org',
  'pypi.org',
  'files.pythonhosted.org',
  'objects.githubusercontent.com',
  'api.anthropic.com',
];
const openFlags = ['O_RDONLY', 'O_RDONLY|O_CLOEXEC', 'O_RDONLY|O_DIRECTORY'];

/** Renders the run's event `i` of a part as one NDJSON line (with its newline). */
type LineWriter = (index: number) => string;

function lineWriter(runs: readonly WorkloadRun[], part: WorkloadPart): LineWriter {
  const random = seededRandom(part.seed);
  const spanNs = part.spanS * 1e9;
  let cachedSecond = -1;
  let cachedPrefix = '';

  /** RFC 3339 text for `startS` + `offsetNs`, with 0, 3, 6 or 9 fraction digits. */
  const timestamp = (offsetNs: number): string => {
    const second = part.startS + Math.floor(offsetNs / 1e9);
    if (second !== cachedSecond) {
      cachedSecond = second;
      cachedPrefix = new Date(second * 1000).toISOString().slice(0, 19);
    }
    const digits = [0, 3, 6, 9, 9, 9][Math.floor(random() * 6)]!;
    const fraction =
      digits === 0
        ? ''
        : '.' +
          String(offsetNs % 1e9)
            .padStart(9, '0')
            .slice(0, digits);
    return `${cachedPrefix}${fraction}${random() < 0.05 ? '+00:00' : 'Z'}`;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

  return (index) => {
    const run = pick(runs);
    const jitter = Math.floor(random() * 50_000_000);
    const offsetNs = Math.min(spanNs - 1, Math.floor((index * spanNs) / part.events) + jitter);
    const pid = run.basePid + Math.floor(random() * 8);
    const cgroup = random() < 0.2 ? run.cgroupId : `"${run.cgroupId}"`;
    const identity =
      `"timestamp":"${timestamp(offsetNs)}","pid":${pid},"tgid":${pid},"ppid":${run.basePid - 1},` +
      `"uid":1000,"cgroup_id":${cgroup}`;
    const kind = random();
    if (kind < 0.15) {
      const [path, ...argv] = pick(execs);
      const comm = argv[0]!;
      return (
        `{"event_type":"execve",${identity},"comm":"${comm}","path":"${path}",` +
        `"argv":${JSON.stringify(argv)},"cwd":"/workspace/${run.runId}"}\n`
      );
    }
    if (kind < 0.5) {
      const path =
        random() < 0.02
          ? pick(secretPaths)
          : `/workspace/${run.runId}/${pick(sourceDirs)}/module_${Math.floor(random() * 400)}${pick(sourceExts)}`;
      return `{"event_type":"file_open",${identity},"comm":"node","path":"${path}","flags":"${pick(openFlags)}","inode":${Math.floor(random() * 1e7)}}\n`;
    }
    if (kind < 0.7) {
      const path = `/workspace/${run.runId}/${pick(sourceDirs)}/out_${Math.floor(random() * 400)}.js`;
      const bytes = 64 + Math.floor(random() * 65_536);
      return `{"event_type":"file_write",${identity},"comm":"node","path":"${path}","flags":"O_WRONLY|O_CREAT|O_TRUNC","bytes":${bytes}}\n`;
    }
    if (kind < 0.85) {
      const where = random();
      const [ip, port] =
        where < 0.03
          ? ['169.254.169.254', 80]
          : where < 0.28
            ? [
                `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`,
                5432,
              ]
            : [`140.82.${112 + Math.floor(random() * 16)}.${1 + Math.floor(random() * 254)}`, 443];
      return `{"event_type":"network_connect",${identity},"comm":"curl","dst_ip":"${ip}","dst_port":${port},"protocol":"tcp","family":"AF_INET"}\n`;
    }
    return `{"event_type":"dns_query",${identity},"comm":"node","query":"${pick(dnsNames)}","qtype":"A","resolver":"127.0.0.53"}\n`;
  };
}

/**
 * Renders a part as NDJSON chunks of about `chunkBytes` each, every chunk ending at a line end.
 * Lazy: a caller that grows a store pulls chunks as it sends them instead of holding them all.
 */
export function* renderChunks(
  runs: readonly WorkloadRun[],
  part: WorkloadPart,
  chunkBytes: number,
): Generator<Buffer, void, undefined> {
  const writeLine = lineWriter(runs, part);
  let lines: string[] = [];
  let size = 0;
  for (let index = 0; index < part.events; index++) {
    const line = writeLine(index);
    lines.push(line);
    size += line.length; // the workload is ASCII: characters are bytes
    if (size >= chunkBytes) {
      yield Buffer.from(lines.join(''), 'latin1');
      lines = [];
      size = 0;
    }
  }
  if (lines.length > 0) yield Buffer.from(lines.join(''), 'latin1');
}

/** Counts the lines of a chunk (every line ends with a newline). */
export function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
  return lines;
}
