/**
 * A behaviour profile learned from a set of runs, in the store actor: per set measure the values
 * the runs showed (run_behaviour, one row per run and value), and per event type the busiest window
 * of any of the runs (run_rates, one row per run and type). Two queries, aggregated in DuckDB.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { VARCHAR } from '../../store/duckdb-api.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { list, readRows, sql } from '../../store/sql.js';
import { typeName } from '../../model/codes.js';
import type { EventType } from '../../model/event.js';
import type { WindowLength } from '../../telemetry/window-facts.js';
import { maxProfileValues, pathDepth, rateFactor, rateSlack, setMeasures } from './baseline-measures.js';

/** One value of a set measure, with how many learned runs showed it and in how many events. */
export interface ProfileValue {
  value: string;
  runs: Count;
  events: Count;
}

/** A set measure's values: the most common first (by runs, then events, then value). */
export interface MeasureValues {
  /** Distinct values the learned runs showed, in all. */
  distinct: Count;
  /** True when the set was cut: `values` holds only the most common of `distinct`. */
  truncated: boolean;
  values: ProfileValue[];
}

/** The busiest window of one event type in any learned run. */
export interface RatePeak {
  type: EventType;
  events: Count;
}

/** What a baseline expects of a run; its canonical JSON is hashed, so versions can be told apart. */
export interface BaselineProfile {
  /** A path's prefix is the first `path_depth` directories of the directory holding it. */
  path_depth: Count;
  /** Most values kept per measure. */
  max_values: Count;
  /** Binaries executed (execve paths). */
  binary: MeasureValues;
  /** Path prefixes read. */
  read_prefix: MeasureValues;
  /** Path prefixes written, renamed to or removed. */
  write_prefix: MeasureValues;
  /** Destinations connected to: `ip:port`, `[ipv6]:port`. */
  destination: MeasureValues;
  /** DNS names looked up, lower case. */
  dns_name: MeasureValues;
  /**
   * Per event type, the most events in one window of `window_s` seconds: a run deviates when its
   * busiest window holds more than max(factor × peak, peak + slack); a type absent here has peak 0.
   */
  rates: { window_s: WindowLength; factor: Count; slack: Count; peaks: RatePeak[] };
}

/** Learns the profile of `runs` (known runs; the caller checked them), rates over windows of `windowS`. */
export async function learnProfile(
  connection: StoreConnection,
  runs: readonly string[],
  windowS: WindowLength,
): Promise<BaselineProfile> {
  const runList = list(runs, VARCHAR);
  const rows = await readRows<{ measure: number; value: string; runs: bigint; events: bigint; n: bigint }>(
    connection,
    sql`SELECT measure, value, runs, events, n FROM (
          SELECT measure, value, count(*) AS runs, sum(events) AS events,
            count(*) OVER (PARTITION BY measure) AS n,
            row_number() OVER (PARTITION BY measure ORDER BY count(*) DESC, sum(events) DESC, value) AS rank
          FROM run_behaviour WHERE run_id IN (SELECT unnest(${runList})) GROUP BY measure, value)
        WHERE rank <= ${maxProfileValues} ORDER BY measure, rank`,
  );
  const peaks = await readRows<{ type: number; peak: bigint }>(
    connection,
    sql`SELECT type, max(peak) AS peak FROM run_rates
        WHERE run_id IN (SELECT unnest(${runList})) AND window_s = ${windowS} GROUP BY type`,
  );
  const measureValues = (code: number): MeasureValues => {
    const kept = rows.filter((row) => row.measure === code);
    const distinct = kept.length === 0 ? 0 : Number(kept[0]!.n);
    return {
      distinct,
      truncated: distinct > kept.length,
      values: kept.map((row) => ({ value: row.value, runs: Number(row.runs), events: Number(row.events) })),
    };
  };
  const [binary, readPrefix, writePrefix, destination, dnsName] = setMeasures.map((_m, code) =>
    measureValues(code),
  );
  return {
    path_depth: pathDepth,
    max_values: maxProfileValues,
    binary: binary!,
    read_prefix: readPrefix!,
    write_prefix: writePrefix!,
    destination: destination!,
    dns_name: dnsName!,
    rates: {
      window_s: windowS,
      factor: rateFactor,
      slack: rateSlack,
      peaks: peaks
        .map((row) => ({ type: typeName(row.type), events: Number(row.peak) }))
        .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)),
    },
  };
}
