/**
 * A learned baseline as the wire carries it (`provenance.baseline/v1`, and its summary in
 * `provenance.baselines/v1`), and as a stored row reads back.
 */
import type { tags } from 'typia';
import type { Count, DateTimeText, Identifier, IntegerIn } from '../../shared/schema/wire-types.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { CursorToken } from '../../model/cursor.js';
import type { PageLimit } from '../../model/paging.js';
import type { WindowLength } from '../../telemetry/window-facts.js';
import type { BaselineProfile } from './baseline-profile.sql.js';

/** A baseline's version: 1 for the first learned under a name, then 2, 3, ... */
export type BaselineVersion = number & tags.Type<'uint64'> & tags.Minimum<1>;

/** A version as a request names it. */
export type BaselineVersionParam = IntegerIn<1, 4294967295>;

/** One version of a baseline, whole (`provenance.baseline/v1`). */
export interface Baseline {
  schema_version: 'provenance.baseline/v1';
  /** The identity it describes: an agent (`claude-code`) or a tool (`tool:pytest`). */
  name: Identifier;
  version: BaselineVersion;
  /** The runs it was learned from, sorted. */
  runs: string[];
  profile: BaselineProfile;
  /** `sha256:<hex>` of the profile's canonical JSON (RFC 8785): equal profiles have equal hashes. */
  profile_sha256: string;
  created_at: DateTimeText;
}

/** One version of a baseline, in a list: the profile is one GET /v1/security/baseline away. */
export interface BaselineSummary {
  name: Identifier;
  version: BaselineVersion;
  /** How many runs it was learned from. */
  run_count: Count;
  /** The window length its rates were learned over, in seconds. */
  window_s: WindowLength;
  profile_sha256: string;
  created_at: DateTimeText;
}

/** One page of learned baselines (`provenance.baselines/v1`), by name, the newest version first. */
export interface BaselineList {
  schema_version: 'provenance.baselines/v1';
  /** The name filter, or null for every name. */
  name: Identifier | null;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  next_cursor: CursorToken | null;
  baselines: BaselineSummary[];
}

/** A baselines row as DuckDB hands it back. */
export interface BaselineRow {
  name: string;
  version: bigint;
  runs: string[];
  profile: string;
  profile_sha256: string;
  created_ns: bigint;
}

/** The whole baseline of a row. */
export function baselineOf(row: BaselineRow): Baseline {
  return {
    schema_version: 'provenance.baseline/v1',
    name: row.name,
    version: Number(row.version),
    runs: row.runs,
    profile: JSON.parse(row.profile) as BaselineProfile,
    profile_sha256: row.profile_sha256,
    created_at: formatRfc3339Nanos(row.created_ns),
  };
}
