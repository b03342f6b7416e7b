/**
 * What a forger does to an exported bundle with nothing but its files: rewrite a Parquet file,
 * make the manifest's digests match, re-sign what is signed with a key of their own. Written
 * against the bundle format as docs/export.md states it, not against provd's code.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signEnvelope } from '../../../src/provenance/dsse.js';
import { queryRows, withDatabase } from '../../support/duckdb.js';

/** The DSSE payload type of a signed manifest, as docs/export.md names it. */
const manifestPayloadType = 'application/vnd.provd.export-manifest+json';

/** A manifest as a forger reads it: JSON they may change at will. */
export interface ForgedManifest {
  scope: string;
  files: { path: string; sha256: string; bytes: number; rows: number }[];
  [field: string]: unknown;
}

/** A signing key of the forger's own, with the id a verifier computes for it. */
export interface ForgerKey {
  privateKey: KeyObject;
  publicKeyPem: string;
  keyId: string;
}

/** A fresh ed25519 key, or the one in a PEM file (the daemon's, to test checks behind the signature). */
export function forgerKey(privatePemFile?: string): ForgerKey {
  const privateKey =
    privatePemFile === undefined
      ? generateKeyPairSync('ed25519').privateKey
      : createPrivateKey(readFileSync(privatePemFile));
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: `sha256:${createHash('sha256')
      .update(publicKey.export({ type: 'spki', format: 'der' }))
      .digest('hex')}`,
  };
}

/** Rewrites a bundle's Parquet file through DuckDB with `select` over its rows (`t`). */
export async function rewriteParquet(file: string, select: string): Promise<void> {
  await withDatabase(':memory:', async (connection) => {
    await connection.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file}')`);
    await connection.run(`COPY (${select}) TO '${file}' (FORMAT parquet)`);
  });
}

/** The rows of a bundle's Parquet file that `where` selects. */
export async function parquetRows(file: string, where = 'true'): Promise<Record<string, unknown>[]> {
  return withDatabase(':memory:', (connection) =>
    queryRows(connection, `SELECT * FROM read_parquet('${file}') WHERE ${where}`),
  );
}

export function readManifest(dir: string): ForgedManifest {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ForgedManifest;
}

/**
 * Writes `manifest` as manifest.json with every listed file's digest and size made to match the
 * files as they are now, the forger's next step; with `key`, re-signs manifest.dsse.json with it
 * (where the bundle has one: a bundle from before signing has none to re-sign).
 */
export function writeForgedManifest(dir: string, manifest: ForgedManifest, key?: ForgerKey): void {
  for (const file of manifest.files) {
    const path = join(dir, file.path);
    if (!existsSync(path)) continue;
    const bytes = readFileSync(path);
    file.sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    file.bytes = bytes.byteLength;
  }
  const bytes = Buffer.from(JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(join(dir, 'manifest.json'), bytes);
  const envelope = join(dir, 'manifest.dsse.json');
  if (key !== undefined && existsSync(envelope))
    writeFileSync(
      envelope,
      JSON.stringify(signEnvelope(manifestPayloadType, bytes, key.privateKey, key.keyId)),
    );
}

/** Re-signs every checkpoint envelope of checkpoints.parquet with `key`, and makes keys.json hold only it. */
export async function resignCheckpoints(dir: string, key: ForgerKey): Promise<void> {
  const file = join(dir, 'checkpoints.parquet');
  await withDatabase(':memory:', async (connection) => {
    await connection.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file}')`);
    for (const row of await queryRows(connection, 'SELECT hash, envelope FROM t')) {
      const old = JSON.parse(String(row['envelope'])) as { payloadType: string; payload: string };
      const envelope = signEnvelope(
        old.payloadType,
        Buffer.from(old.payload, 'base64'),
        key.privateKey,
        key.keyId,
      );
      const quoted = (text: string): string => `'${text.replaceAll("'", "''")}'`;
      await connection.run(
        `UPDATE t SET envelope = ${quoted(JSON.stringify(envelope))}, key_id = ${quoted(key.keyId)} WHERE hash = ${quoted(String(row['hash']))}`,
      );
    }
    await connection.run(`COPY t TO '${file}' (FORMAT parquet)`);
  });
  const keys = {
    schema_version: 'provenance.keys/v1',
    keys: [{ key_id: key.keyId, algorithm: 'ed25519', public_key_pem: key.publicKeyPem, current: true }],
  };
  writeFileSync(join(dir, 'keys.json'), JSON.stringify(keys, null, 2) + '\n');
}
