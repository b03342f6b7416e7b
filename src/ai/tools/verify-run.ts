/** `verify_run`: GET /v1/graph/verify as a tool. */
import { runQuery } from '../../provenance/run-query.js';
import { verifyContract } from '../../provenance/verify.contract.js';
import { queryTool } from '../query-tool.js';

export const verifyRun = queryTool({
  name: 'verify_run',
  title: "Verify a run's evidence chain",
  endpoint: verifyContract,
  query: runQuery,
  description:
    "Checks that a run's stored evidence is intact: recomputes every object hash (RFC 8785 canonical " +
    'JSON, sha256) and the Merkle roots of its event batches, checks parent links, the signed ' +
    'checkpoints (ed25519 DSSE) and that every policy decision still points at the event it judged, ' +
    "unaltered. Use it before relying on a run's other answers, or when asked whether evidence was " +
    'tampered with. `status` is `ok` or `failed` with `issues` (each with severity, kind, id, message); ' +
    'warnings (such as events still waiting to be sealed) do not fail it. It proves the store was not ' +
    'edited after the fact, not that the sensor saw everything: capture loss shows in get_signals ' +
    '(security.coverage_gaps). Input: `run`, the run id.',
});
