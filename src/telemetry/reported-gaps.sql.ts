/**
 * Loss a producer reports about itself (a `capture_loss` event: Tetragon throttling and rate limits,
 * Falco's syscall event drops) is also recorded as a coverage gap, in the transaction that stores the
 * event. A throttling window opens with THROTTLE_START and closes with the next THROTTLE_STOP of the
 * same cgroup, which may come in a later request.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { execute, readRows, sql } from '../store/sql.js';
import type { ReportedGap } from './reported-gap.js';

/** Records reported gaps; a close ends the latest open window of its source and cgroup. */
export async function recordReportedGaps(
  connection: StoreConnection,
  gaps: readonly ReportedGap[],
): Promise<void> {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  for (const gap of gaps) {
    const detail = { event_id: gap.eventId, cgroup: gap.cgroup, open: gap.span === 'open' };
    if (gap.span === 'close') {
      const closed = await readRows(
        connection,
        sql`UPDATE coverage_gaps SET end_ns = ${gap.timeNs},
              detail = json_merge_patch(detail, json_object('open', false, 'closed_by', ${gap.eventId}))
            WHERE id = (SELECT id FROM coverage_gaps
              WHERE kind = ${gap.kind} AND source = ${gap.source}
                AND json_extract_string(detail, '$.open') = 'true'
                AND json_extract_string(detail, '$.cgroup') = ${gap.cgroup} AND start_ns <= ${gap.timeNs}
              ORDER BY start_ns DESC LIMIT 1)
            RETURNING id`,
      );
      if (closed.length > 0) continue;
      Object.assign(detail, { start_unknown: true }); // a stop without its start: loss up to this instant
    }
    await execute(
      connection,
      sql`INSERT INTO coverage_gaps VALUES ('gap_' || ${gap.eventId}, NULL, ${gap.kind}, ${gap.source},
          ${gap.timeNs}, ${gap.timeNs}, ${gap.lostEvents}, NULL, ${JSON.stringify(detail)}, ${nowNs})`,
    );
  }
}
