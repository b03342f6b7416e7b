/** `provd verify --bundle DIR`: checks exported runs with no daemon and no provd database. */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { Command, Option } from 'clipanion';
import { ProvdError } from '../../shared/errors.js';
import type { VerifyResult } from '../../provenance/verify-result.js';
import { usageExitCode } from '../daemon-client-command.js';

export class VerifyBundleCommand extends Command {
  static override paths = [['verify']];

  static override usage = Command.Usage({
    description: 'Verify exported run bundles offline',
    details: `
      Finds every bundle (a directory with a manifest.json) under \`--bundle\` and verifies it
      alone, in an in-memory DuckDB: the manifest's signature (manifest.dsse.json), which alone
      says what the bundle is (scope, run, host, directory, files); the directory and every file's
      hash against it; every event hash, every batch's Merkle root, every object hash and chain
      link, and every checkpoint signature. Signatures must verify under the public key \`--key\`
      names (PEM, the daemon's GET /v1/graph/keys): a bundle re-signed with another key fails.
      Without \`--key\` they are checked only under the bundle's own keys.json, which whoever
      wrote the bundle chose: each bundle then fails with bundle_signer_unpinned, unless
      \`--trust-bundle-key\` accepts that (a warning then says so). Prints one line per bundle,
      or with \`--json\` one \`provenance.verify/v1\` body per line, as \`GET
      /v1/graph/verify\` answers.

      A file in a \`name=value\` directory that no bundle holds fails too: a Hive query over the
      tree would read it, and no manifest vouches for it.

      Exit code 0 when every bundle is ok, 1 when one failed, 2 for bad usage (no bundle found,
      an unreadable \`--key\`, \`--key\` with \`--trust-bundle-key\`).
    `,
    examples: [
      ['Bundles signed by the daemon whose key you hold', '$0 verify --bundle ./exports --key host-a.pub'],
      [
        'Bundles checked under their own keys (integrity, not origin)',
        '$0 verify --bundle ./exports --trust-bundle-key',
      ],
    ],
  });

  // not required to clipanion: `provd verify` with neither RUN nor --bundle lands here, and is told both
  bundle = Option.String('--bundle', {
    description: 'a bundle directory, or a directory of exports',
  });
  // `provd verify --url URL` without RUN lands here too (and is told it needs one): not used
  url = Option.String('--url', { hidden: true });
  key = Option.String('--key', {
    description: 'the public key (PEM) the manifests and checkpoints must be signed with',
  });
  trustBundleKey = Option.Boolean('--trust-bundle-key', false, {
    description: "without --key: accept the bundle's own keys.json as the signer (said in a warning)",
  });
  json = Option.Boolean('--json', false, {
    description: 'print each provenance.verify/v1 body as one JSON line',
  });

  async execute(): Promise<number> {
    const { stdout, stderr } = this.context;
    if (this.bundle === undefined) {
      stderr.write(
        'provd: PROVD_ERR_CLI_USAGE: verify needs a RUN (provd verify RUN: a run the daemon holds) or --bundle DIR (exported runs, offline) or --attestation FILE --key PUB (an attestation, offline)\n',
      );
      return usageExitCode;
    }
    // loaded here: DuckDB is mapped only into the process of the one command that reads Parquet
    const { keyOf } = await import('../../views/export/bundle-tables.sql.js');
    const { unbundledFiles, verifyBundle } = await import('../../views/export/bundle-verify.sql.js');
    let pinned: Map<string, string> | undefined;
    let bundles: string[];
    let strays: string[];
    try {
      if (this.key !== undefined && this.trustBundleKey)
        throw new ProvdError(
          'PROVD_ERR_CONFIG_INVALID',
          "--key and --trust-bundle-key exclude each other: pin the key, or accept the bundle's own",
        );
      if (this.key !== undefined) pinned = new Map([readKey(this.key, keyOf)]);
      ({ bundles, strays } = findBundles(this.bundle));
    } catch (error) {
      if (!(error instanceof ProvdError)) throw error;
      stderr.write(`provd: ${error.code}: ${error.message}\n`);
      return usageExitCode;
    }
    let failed = 0;
    if (strays.length > 0) {
      const result = unbundledFiles(this.bundle, strays);
      failed++;
      stdout.write(this.json ? JSON.stringify(result) + '\n' : humanLine(this.bundle, result));
    }
    for (const dir of bundles) {
      const result = await verifyBundle(dir, { pinned, trustBundleKey: this.trustBundleKey });
      if (result.status !== 'ok') failed++;
      stdout.write(this.json ? JSON.stringify(result) + '\n' : humanLine(dir, result));
    }
    return failed > 0 ? 1 : 0;
  }
}

/** `<status> <run> <dir>: N errors, M warnings`, then each listed issue indented. */
function humanLine(dir: string, result: VerifyResult): string {
  const head = `${result.status} ${result.run_id} ${dir}: ${result.error_count} errors, ${result.warning_count} warnings\n`;
  return (
    head +
    (result.issues ?? [])
      .map((issue) => `  ${issue.severity} ${issue.kind} ${issue.id}: ${issue.message}\n`)
      .join('')
  );
}

/** The PEM of --key; a file that is not a public key is bad usage, not a failed bundle. */
function readKey(file: string, keyOf: (pem: string) => [string, string]): [string, string] {
  try {
    return keyOf(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ProvdError('PROVD_ERR_CONFIG_INVALID', `--key ${file} is not a readable public key (PEM)`, {
      cause: error,
    });
  }
}

/**
 * Every directory under `root` (itself included) that holds a manifest.json, in path order; and
 * every file (or link) of a `name=value` directory that is in no bundle: a Hive query over the
 * tree would read it as evidence, and no manifest vouches for it.
 */
function findBundles(root: string): { bundles: string[]; strays: string[] } {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true, recursive: true });
  } catch (error) {
    throw new ProvdError('PROVD_ERR_CONFIG_INVALID', `--bundle ${root} cannot be read`, { cause: error });
  }
  const found = entries
    .filter((entry) => entry.isFile() && entry.name === 'manifest.json')
    .map((entry) => entry.parentPath)
    .sort();
  if (found.length === 0)
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `--bundle ${root} holds no manifest.json: nothing to verify`,
    );
  // what sits below a bundle is that bundle's to report (bundle_file_unlisted)
  const inBundle = (dir: string): boolean =>
    found.some((bundle) => dir === bundle || dir.startsWith(bundle + sep));
  const inPartition = (dir: string): boolean =>
    [basename(resolve(root)), ...relative(root, dir).split(sep)].some((segment) => segment.includes('='));
  const strays = entries
    .filter((entry) => !entry.isDirectory() && !inBundle(entry.parentPath) && inPartition(entry.parentPath))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  return { bundles: found, strays };
}
