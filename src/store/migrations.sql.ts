/**
 * The schema as plain numbered files in sql/ (`NNN_name.sql`). The store format version is the
 * highest migration number; each applied file is recorded in store_format with its checksum.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ProvdError } from '../shared/errors.js';
import { packageRoot } from '../shared/package-root.js';

/** One migration file. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

const fileName = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/** Reads every migration in sql/, ordered by version; numbers must run 1, 2, 3... without gaps. */
export function loadMigrations(dir = join(packageRoot, 'sql')): Migration[] {
  const migrations = readdirSync(dir)
    .flatMap((file) => {
      const match = fileName.exec(file);
      if (!match) return [];
      const sql = readFileSync(join(dir, file), 'utf8');
      const checksum = 'sha256:' + createHash('sha256').update(sql).digest('hex');
      return [{ version: Number(match[1]), name: match[2] ?? file, sql, checksum }];
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `failed to load migrations: expected ${index + 1}, found ${migration.version} in ${dir}`,
      );
    }
  });
  return migrations;
}

/** Applies the given migrations in order, each in its own transaction with its store_format row. */
export async function applyMigrations(connection: DuckDBConnection, pending: Migration[]): Promise<void> {
  for (const migration of pending) {
    try {
      await connection.run('BEGIN TRANSACTION');
      await connection.run(migration.sql);
      await connection.run('INSERT INTO store_format (version, name, checksum) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      await connection.run('COMMIT');
    } catch (cause) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw new ProvdError(
        'PROVD_ERR_STORE_MIGRATE',
        `failed to apply migration ${migration.version} (${migration.name}): ${String(cause)}`,
        { cause },
      );
    }
  }
}
