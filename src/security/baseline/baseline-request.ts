/**
 * The body of POST /v1/security/baselines as one TS type: typia makes it the OpenAPI
 * `BaselineRequest` schema and its check (unknown fields are refused).
 */
import typia, { type tags } from 'typia';
import { SchemaContract } from '../../shared/schema/schema-contract.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { WindowLength } from '../../telemetry/window-facts.js';

/** Most runs one baseline is learned from. */
export const maxLearnedRuns = 1000;

/** What to learn a baseline version from. */
export interface BaselineRequest {
  /** The identity it describes: an agent (`claude-code`) or a tool (`tool:pytest`). */
  name: Identifier;
  /** The runs to learn from: 1..1000 distinct run ids, each one a known run. */
  runs: Identifier[] & tags.MinItems<1> & tags.MaxItems<typeof maxLearnedRuns> & tags.UniqueItems;
  /** Length in seconds of the windows its rates are learned over: 10 (default) or 60. */
  window_s?: WindowLength | null;
}

/** BaselineRequest's schema and validator: unknown fields are refused. */
export const baselineRequest = new SchemaContract<BaselineRequest>(
  typia.json.schema<BaselineRequest, '3.1'>(),
  typia.createValidateEquals<BaselineRequest>(),
  'baseline body',
);
