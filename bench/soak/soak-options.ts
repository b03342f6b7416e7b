/** The command line of `npm run soak`, read and checked before anything starts. */
import { randomInt } from 'node:crypto';

export const phaseNames = ['fuzz', 'kill', 'flood', 'disk', 'slow'] as const;
export type PhaseName = (typeof phaseNames)[number];

export interface SoakOptions {
  seed: number;
  phases: PhaseName[];
  sensor: boolean;
  /** Where failures and saved requests go (a fresh temp dir by default). */
  out: string | null;
  keep: boolean;
  fuzz: { concurrency: number; seconds: number; requests: number | null };
  kill: { kills: number };
  flood: { clients: number; seconds: number };
  disk: { mib: number };
  slow: { seconds: number; readers: number };
}

export const usage = `npm run soak -- [options]

  --seed N              the seed of every random choice (default: random, printed)
  --phase LIST          phases to run, comma-separated: ${phaseNames.join(',')} (default: all)
  --sensor              run the daemon with its eBPF sensor (default: --no-sensor)
  --concurrency N       fuzz clients at once (default 6)
  --fuzz-seconds S      fuzz for S seconds (default 120)
  --fuzz-requests N     fuzz N requests instead of a duration
  --kills N             kill -9s during ingest (default 50)
  --flood-clients N     clients ingesting and querying at once (default 8)
  --flood-seconds S     (default 45)
  --disk-mib N          size of the tmpfs the disk phase fills (default 64, at least 48)
  --slow-seconds S      (default 30)
  --slow-readers N      connections that read a large answer slowly or never (default 40)
  --out DIR             where failures.ndjson and the failing requests go (default: a new temp dir)
  --keep                keep the daemons' data dirs
`;

/** Reads `argv` (without node and the script); throws naming the option on a bad value. */
export function parseOptions(argv: readonly string[]): SoakOptions {
  const options: SoakOptions = {
    seed: randomInt(1, 2 ** 31),
    phases: [...phaseNames],
    sensor: false,
    out: null,
    keep: false,
    fuzz: { concurrency: 6, seconds: 120, requests: null },
    kill: { kills: 50 },
    flood: { clients: 8, seconds: 45 },
    disk: { mib: 64 },
    slow: { seconds: 30, readers: 40 },
  };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    const count = (min = 1): number => {
      const text = value();
      const n = Number(text);
      if (!Number.isInteger(n) || n < min)
        throw new Error(`${name} must be an integer >= ${min}, not ${text}`);
      return n;
    };
    if (name === '--seed') options.seed = count(0);
    else if (name === '--phase') options.phases = phasesOf(value());
    else if (name === '--sensor') options.sensor = true;
    else if (name === '--concurrency') options.fuzz.concurrency = count();
    else if (name === '--fuzz-seconds') options.fuzz.seconds = count();
    else if (name === '--fuzz-requests') options.fuzz.requests = count();
    else if (name === '--kills') options.kill.kills = count(0);
    else if (name === '--flood-clients') options.flood.clients = count();
    else if (name === '--flood-seconds') options.flood.seconds = count();
    else if (name === '--disk-mib') options.disk.mib = count(48);
    else if (name === '--slow-seconds') options.slow.seconds = count();
    else if (name === '--slow-readers') options.slow.readers = count(0);
    else if (name === '--out') options.out = value();
    else if (name === '--keep') options.keep = true;
    else throw new Error(`unknown option ${name}\n\n${usage}`);
  }
  return options;
}

function phasesOf(list: string): PhaseName[] {
  const names = list.split(',').filter((name) => name !== '');
  for (const name of names)
    if (!(phaseNames as readonly string[]).includes(name))
      throw new Error(`--phase: unknown phase ${name} (known: ${phaseNames.join(', ')})`);
  return phaseNames.filter((name) => names.includes(name));
}
