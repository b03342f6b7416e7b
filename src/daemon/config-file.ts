/**
 * `provd daemon --config FILE`: the daemon's flags as a YAML or JSON file, keys named like the long
 * flags (`listen`, `data-dir`, `spool-ttl`, ...). Read with the policy file's reader (a regular
 * file, at most 1 MiB, no FIFO or device) and its YAML guards (unique keys, bounded aliases).
 *
 * The file steers what the daemon trusts (where it listens, which policy, which key signs), so it is
 * refused, as sshd's StrictModes refuses a config, when users other than its owner may write it or
 * its owner is neither root nor the daemon's user; and one that holds `auth-token` is refused when
 * others may read it, as OpenSSH refuses a readable private key.
 */
import { dirname, resolve } from 'node:path';
import { yaml } from '../shared/yaml.js';
import { readPolicyBytes } from '../security/policy/policy-file-read.js';
import { ProvdError } from '../shared/errors.js';
import {
  configKeysOf,
  daemonOptions,
  type DaemonFlags,
  type DaemonOption,
  type DaemonOptionKind,
} from './daemon-options.js';

/** A config file larger than this is refused: it holds a dozen keys. */
const maxFileBytes = 1024 * 1024;

/**
 * Every key a config file may hold, in daemon-options.ts's order: the option it gives, and whether
 * it is the `no-` key of a negatable switch.
 */
export const configKeys: Readonly<Record<string, readonly [option: DaemonOption, negated: boolean]>> =
  Object.fromEntries(
    daemonOptions.flatMap((option) =>
      configKeysOf(option).map((key, index) => [key, [option, index > 0]] as const),
    ),
  );

const what: Record<DaemonOptionKind, string> = {
  text: 'a string',
  path: 'a path (a string; relative to the config file)',
  integer: 'a non-negative integer',
  duration: 'a duration like 90s, 2m, 7d or 500ms, or a number of seconds',
  size: 'a size like 512M or 2G, or a number of bytes',
  boolean: 'true or false',
};

/** The flags `path` gives; throws PROVD_ERR_CONFIG_INVALID naming the file and the key. */
export async function loadConfigFile(
  path: string,
  daemonUid = process.getuid?.() ?? -1,
): Promise<DaemonFlags> {
  const fail = (message: string): never => {
    throw new ProvdError('PROVD_ERR_CONFIG_INVALID', `--config ${path}: ${message}`);
  };
  const { bytes, size, mode, uid } = await readPolicyBytes(path, maxFileBytes, fail);
  if (size > maxFileBytes) fail(`the file holds ${size} bytes, more than ${maxFileBytes}`);
  if ((mode & 0o022) !== 0)
    fail(
      `other users may write it (mode ${octal(mode)}): chmod go-w it, as it decides what the daemon trusts`,
    );
  if (uid !== 0 && uid !== daemonUid) fail(`it is owned by uid ${uid}, neither root nor the daemon's user`);
  const document = yaml().parseDocument(bytes.toString('utf8'), { uniqueKeys: true, prettyErrors: true });
  const error = document.errors[0];
  if (error !== undefined) fail(`not valid YAML or JSON: ${error.message.split('\n')[0]}`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 20 });
  } catch (error) {
    return fail(`cannot be read as YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (value === null || value === undefined) return {}; // an empty file sets nothing
  if (typeof value !== 'object' || Array.isArray(value))
    return fail('it must be a mapping of keys to values');
  const flags: Record<string, string | boolean> = {};
  for (const [key, given] of Object.entries(value as Record<string, unknown>)) {
    if (!Object.hasOwn(configKeys, key))
      fail(`unknown key "${key}" (known: ${Object.keys(configKeys).join(', ')})`);
    const [{ flag, property, kind, negatable }, negated] = configKeys[key]!;
    const checked = checkedValue(given, kind) ?? fail(`${key} must be ${what[kind]}, not ${describe(given)}`);
    if (negatable) {
      const on = negated ? checked !== true : checked === true;
      const name = flag.slice(2);
      if (flags[property] !== undefined && flags[property] !== on) fail(`${name} and no-${name} disagree`);
      flags[property] = on;
    } else flags[property] = kind === 'path' ? resolve(dirname(path), checked as string) : checked;
  }
  if (flags['authToken'] !== undefined && (mode & 0o077) !== 0)
    fail(`it holds auth-token and other users may read it (mode ${octal(mode)}): chmod 600 it`);
  return flags;
}

/** The value as DaemonFlags holds it (strings, as a flag gives them, and booleans), or undefined. */
function checkedValue(value: unknown, kind: DaemonOptionKind): string | boolean | undefined {
  if (kind === 'boolean') return typeof value === 'boolean' ? value : undefined;
  if (kind === 'integer' || kind === 'duration' || kind === 'size')
    if (typeof value === 'number')
      return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  if (typeof value !== 'string' || value === '') return undefined;
  if (kind === 'integer' && !/^\d+$/.test(value)) return undefined;
  return value;
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/** A value as a message shows it: JSON, cut at 60 characters. */
function describe(value: unknown): string {
  return (JSON.stringify(value) as string | undefined)?.slice(0, 60) ?? typeof value;
}
