/**
 * One binding's correlation rules as SQL over the events table: the tier by which it claims each
 * event, or NULL. It is BindingIndex.correlate for an index that holds this binding alone, which
 * is all a new binding needs: every spooled event matched no earlier binding when it was last
 * checked (at its commit), so only the new one can claim it now. Written beside the rules it
 * mirrors; test/telemetry/binding-match.test.ts holds the two equal over a matrix of cases.
 */
import { join, raw, sql, type Statement } from '../store/sql.js';
import type { Binding } from './binding.js';
import {
  decimalProcessId,
  isTruncatable,
  maxContainerId,
  minContainerPrefix,
  normalizeContainerId,
  runtimeSchemes,
  type MatchMethod,
} from './binding-index.js';
import { methodCode } from '../model/codes.js';

// the event's process identity: attrs.exec_id when it is a non-empty string (BindingIndex.correlate)
const hasExecId = raw(
  "(json_type(attrs, '$.exec_id') = 'VARCHAR' AND json_extract_string(attrs, '$.exec_id') <> '')",
);
// normalizeContainerId: lower-cased when it holds an ASCII capital, one runtime scheme stripped
const eventContainer = raw(
  "regexp_replace(CASE WHEN regexp_matches(container_id, '[A-Z]') THEN lower(container_id) ELSE container_id END, " +
    `'^(${runtimeSchemes.map((scheme) => scheme.replace('://', '')).join('|')})://', '')`,
);
const truncatable = raw(`'[0-9a-f]{${minContainerPrefix},${maxContainerId}}'`);

/** A SQL expression: the method code (codes.ts) by which `binding` claims an event row, or NULL. */
export function bindingMatch(binding: Binding): Statement {
  const tiers: [MatchMethod, Statement][] = [];
  if (binding.process_id !== null) {
    const pid = decimalProcessId(binding.process_id);
    const byPid = pid === null ? sql`false` : sql`coalesce(tgid, pid) = ${pid}`;
    tiers.push([
      'process',
      sql`CASE WHEN ${hasExecId} THEN json_extract_string(attrs, '$.exec_id') = ${binding.process_id} ELSE ${byPid} END`,
    ]);
  }
  if (binding.cgroup_id !== null) tiers.push(['cgroup', sql`cgroup_id = ${binding.cgroup_id}`]);
  const container = binding.container_id === null ? '' : normalizeContainerId(binding.container_id);
  if (container !== '') {
    tiers.push([
      'container',
      isTruncatable(container)
        ? sql`(regexp_full_match(${eventContainer}, ${truncatable})
               AND (starts_with(${eventContainer}, ${container}) OR starts_with(${container}, ${eventContainer})))`
        : sql`${eventContainer} = ${container}`,
    ]);
  }
  const pids = [...new Set([binding.pid, binding.root_pid])].filter((pid): pid is number => pid !== null);
  if (pids.length > 0) {
    // the event's pid, its tgid and its parent's pid may each be the bound pid or root pid
    const isBound = (column: string): Statement =>
      join(
        pids.map((pid) => sql`${raw(column)} = ${pid}`),
        ' OR ',
      );
    tiers.push(['pid', sql`(${isBound('pid')} OR ${isBound('tgid')} OR ${isBound('ppid')})`]);
  }
  if (tiers.length === 0) return sql`NULL::UTINYINT`;
  // the interval is inclusive at both ends; null ends are unbounded
  const outside: Statement[] = [];
  if (binding.startNs !== null) outside.push(sql`time_ns < ${binding.startNs}`);
  if (binding.endNs !== null) outside.push(sql`time_ns > ${binding.endNs}`);
  let cases = outside.length === 0 ? sql`` : sql` WHEN ${join(outside, ' OR ')} THEN NULL`;
  for (const [method, condition] of tiers) cases = sql`${cases} WHEN ${condition} THEN ${methodCode(method)}`;
  return sql`(CASE${cases} END)::UTINYINT`;
}
