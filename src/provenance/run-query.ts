/** The query string of the per-run paths that take nothing but `run` (verify, checkpoint, summary). */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';

/** `?run=R`: the run a path answers about. */
export interface RunQuery {
  /** run identifier */
  run: string;
}

/** How those routes read `run`, and their OpenAPI parameter. */
export const runQuery = new ParamContract<RunQuery>(
  typia.json.schema<RunQuery, '3.1'>(),
  typia.createValidate<RunQuery>(),
);
