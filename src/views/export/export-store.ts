/**
 * Exports on the store thread: a run's bundle or a range's events written as Parquet by DuckDB
 * (COPY ... TO) into a fresh private directory under the daemon's data dir, never a path a caller
 * chose. The route archives the directory and removes it; what a crash leaves is removed at start.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { StatementSigner } from '../../provenance/signing-key.js';
import { jsonText } from '../../store/json-text.js';
import type { KindsOf, QueryRequest, StoreContext } from '../../store/store-module.js';
import type { StartedModule, StoreModuleSpec } from '../../store/store-modules.js';
import { attestRun, type AttestationParams } from '../attest/attest-run.js';
import { exportRange } from './export-range.sql.js';
import { exportRun } from './export-run.sql.js';

/** What the export module is started with (StoreThreadData.exports). */
export interface ExportStoreInit {
  /** The daemon's private directory for exports being written (`<data dir>/exports`). */
  dir: string;
  /** The host partition value, already sanitised (exportHostName). */
  host: string;
}

/** One export: a run, or the events of [fromNs, toNs). */
export type ExportParams = { run: string } | { fromNs: bigint; toNs: bigint };

/** Where the store wrote an export: the caller archives `files` (relative to `dir`) and removes `dir`. */
export interface ExportWritten {
  dir: string;
  files: string[];
  bytes: number;
}

/** What the module needs: its init data, and the provenance module's sealing wait and signer. */
export interface ExportNeeds {
  exports: ExportStoreInit;
  sealedFirst: () => Promise<void>;
  signer: StatementSigner;
  attestationSigner: StatementSigner;
}

function exportHandlers(
  context: StoreContext,
  { exports: init, sealedFirst, signer, attestationSigner }: ExportNeeds,
) {
  return {
    exportBundle: async (params: ExportParams, request: QueryRequest) => {
      // sealed first: a run's bundle holds every event committed before the request, sealed
      await sealedFirst();
      const dir = mkdtempSync(join(init.dir, 'export-'));
      try {
        const files = await context.snapshot((connection) =>
          'run' in params
            ? exportRun(connection, dir, init.host, params.run, signer)
            : exportRange(connection, dir, init.host, params, signer),
        );
        // a caller that gave up will never archive and remove it: do not leave it behind
        if (request.signal.aborted) throw new Error('the export was written after its deadline');
        const bytes = files.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
        return jsonText<ExportWritten>({ dir, files, bytes });
      } catch (error) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    },
    // a run's in-toto attestation (src/views/attest/), as of a sealing round as a bundle is
    attestation: async (params: AttestationParams) => {
      await sealedFirst();
      return jsonText(
        await context.snapshot((connection) => attestRun(connection, params, init.host, attestationSigner)),
      );
    },
  };
}

/** The export module's kinds. */
export type ExportKinds = KindsOf<ReturnType<typeof exportHandlers>>;

/** The export module (bundles, ranges, attestations): it needs the sealing wait and the signer, gives and lends nothing. */
export const exportModule = {
  name: 'export',
  participants: {},
  start: (context: StoreContext, needs: ExportNeeds): StartedModule<Record<string, never>> => {
    // what an interrupted export left behind is nobody's now
    rmSync(needs.exports.dir, { recursive: true, force: true });
    mkdirSync(needs.exports.dir, { recursive: true, mode: 0o700 });
    return { queries: exportHandlers(context, needs), lends: {} };
  },
} satisfies StoreModuleSpec<ExportNeeds, Record<string, never>, Record<string, never>>;
