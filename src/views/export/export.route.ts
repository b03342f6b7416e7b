/**
 * GET /v1/export on the main thread: check the query, have the store write the export into its
 * own private directory, answer that directory as one uncompressed tar archive (the one answer
 * that is not JSON), then remove it. The caller never names a path the daemon writes to.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import typia from 'typia';
import { ProvdError } from '../../shared/errors.js';
import type { Endpoint } from '../../shared/http/endpoint.js';
import { ParamContract } from '../../shared/http/param-contract.js';
import { parseRfc3339 } from '../../shared/rfc3339.js';
import type { DateTimeText } from '../../shared/schema/wire-types.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { writeTar, type TarEntry } from '../../shared/tar/tar-writer.js';
import { maxExportArchiveBytes } from './export-limits.js';
import type { ExportKinds, ExportParams } from './export-store.js';
import type { ExportManifest } from './export-manifest.js';

/** The query string of GET /v1/export: `run`, or both `from` and `to`. */
export interface ExportQuery {
  /** the run to export whole (its events, graph objects, checkpoints, keys); not with from/to */
  run?: string;
  /** with `to`: export the events captured at or after this instant (every run, and those of none) */
  from?: DateTimeText;
  /** with `from`: the end of the range, exclusive; at most 31 days after `from` */
  to?: DateTimeText;
}

export const exportQuery = new ParamContract<ExportQuery>(
  typia.json.schema<ExportQuery, '3.1'>(),
  typia.createValidate<ExportQuery>(),
);

/** The longest range one request may export: a bounded answer, and a day partition of a month at most. */
export const maxRangeNs = 31n * 86_400n * 1_000_000_000n;
/** How long the store may take to write an export. */
const deadlineMs = 120_000;

/** The checked params of a query, or 400 naming what is wrong. */
export function exportParams(query: ExportQuery): ExportParams {
  const { run, from, to } = query;
  if (run !== undefined) {
    if (from !== undefined || to !== undefined)
      throw new ProvdError(
        'invalid_argument',
        'run cannot be given with from or to: export a run, or a range',
      );
    return { run };
  }
  if (from === undefined || to === undefined)
    throw new ProvdError('invalid_argument', 'give run, or both from and to (a range needs both bounds)');
  const fromNs = parseRfc3339(from);
  if (fromNs === undefined) throw exportQuery.invalid('from');
  const toNs = parseRfc3339(to);
  if (toNs === undefined) throw exportQuery.invalid('to');
  if (toNs <= fromNs) throw new ProvdError('invalid_argument', 'to must be after from');
  if (toNs - fromNs > maxRangeNs)
    throw new ProvdError(
      'invalid_argument',
      'from and to may be at most 31 days apart: export a shorter range',
    );
  return { fromNs, toNs };
}

/** A run's bundle, or a range's events, as a tar archive of Hive-partitioned Parquet files. */
export const exportEndpoint: Endpoint<{ store: QueryClient<ExportKinds> }> = {
  method: 'GET',
  path: '/v1/export',
  operationId: 'export',
  summary:
    'A run, or the events of a time range, as Hive-partitioned Parquet files in an uncompressed tar archive (provd extension; docs/export.md)',
  description:
    'The one answer that is not JSON: `application/x-tar`, entries `host=<host>/date=<YYYY-MM-DD>/run=<run>/<file>`. ' +
    'A run bundle holds events.parquet, objects.parquet, heads.parquet, checkpoints.parquet, artifacts.parquet, ' +
    'keys.json, manifest.json (`provenance.export_manifest/v1`) and manifest.dsse.json (the manifest signed by the checkpoint key); ' +
    'a range holds events.parquet, keys.json, manifest.json and manifest.dsse.json per run ' +
    '(`run=_none` for events no run claimed). Refused with 400 past 31 days or 256 MiB. Errors are JSON as everywhere.',
  schema: 'export_manifest',
  answerType: () => typia.json.schemas<[ExportManifest], '3.1'>(),
  query: exportQuery.parameters,
  handler:
    ({ store }) =>
    async ({ query }) => {
      const params = exportParams(exportQuery.parse(query));
      const written = await store.queryJson('exportBundle', params, { deadlineMs });
      try {
        const tooLarge = (bytes: number): ProvdError =>
          new ProvdError(
            'invalid_argument',
            `the export is ${bytes} bytes, over the ${maxExportArchiveBytes} an answer carries: export a shorter range`,
          );
        if (written.bytes > maxExportArchiveBytes) throw tooLarge(written.bytes);
        // read asynchronously: the main thread keeps answering other requests meanwhile
        const entries: TarEntry[] = await Promise.all(
          written.files.map(async (path) => ({ path, content: await readFile(join(written.dir, path)) })),
        );
        const body = writeTar(entries, Math.floor(Date.now() / 1000));
        // the archive, headers included, is what the CLI caps its read at
        if (body.byteLength > maxExportArchiveBytes) throw tooLarge(body.byteLength);
        return { status: 200, body, headers: { 'content-type': 'application/x-tar' } };
      } finally {
        await rm(written.dir, { recursive: true, force: true });
      }
    },
};
