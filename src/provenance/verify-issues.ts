/**
 * What verification found, kind by kind. Every kind is listed here with its meaning; the README's
 * graph section lists the same kinds.
 */
import type { VerifyIssue } from './verify-result.js';

/** The kinds of problem verification reports, each an error unless noted. */
export const verifyIssueKinds = {
  run_object_missing: 'the run has no run object, or its run object is not stored',
  object_hash_mismatch: "an object's stored bytes do not hash to its address",
  object_malformed: "an object's bytes are not a graph object of its row's kind and run",
  parent_missing: 'an object names a parent that is not stored',
  parent_other_run: 'an object names a parent of another run',
  chain_gap: 'a chain skips an index: an object of it is missing',
  chain_fork: 'two objects of a chain claim one index',
  chain_link_broken: 'an object does not name the object before it in its chain',
  chain_head_mismatch: 'the recorded head of a chain is not its last object',
  event_hash_mismatch: "an event's stored facts do not hash to its stored hash",
  batch_count_mismatch: 'a batch seals another number of events than it records',
  batch_root_mismatch: "the Merkle root over a batch's events differs from the one it records",
  unsealed_event: 'an event of the run is sealed by no batch',
  event_pending_seal:
    'a warning: events committed while verify ran are not sealed yet (their digest is stored, the next checkpoint seals it)',
  artifact_missing: 'an artifact object names bytes that are not stored',
  artifact_content_mismatch: "an artifact's stored bytes do not hash to the address its object names",
  checkpoint_missing: 'the run, or a checkpoint object of it, has no signed envelope',
  checkpoint_payload_mismatch: 'a checkpoint envelope does not carry exactly the checkpoint object',
  checkpoint_key_unknown: 'a checkpoint is signed by no key this store knows (GET /v1/graph/keys)',
  checkpoint_signature_invalid: 'a checkpoint signature does not verify under its key',
  checkpoint_stale: 'the last checkpoint does not name the current head of a chain',
  decision_event_missing: 'a policy decision names an event of the run that is not stored',
  decision_event_altered:
    'the event a policy decision judged is no longer the event it judged (its hash or its run changed)',
  decision_missing: 'an event the policy judged has no stored decision',
  judgment_root_mismatch:
    "the policy's decisions on a batch's events are not those its sealed object records (one was added, removed or rewritten)",
  enforcement_decision_missing: 'a kill provd recorded names an event with no kill decision',
  tool_call_decision_mismatch:
    'a stored decision on a tool call is not the one its sealed tool_call object records (rewritten, or stored for no such call)',
  tool_call_decision_missing: 'a tool call the gate did not simply allow has no stored decision',
  bundle_manifest_invalid:
    'an export bundle has no readable provenance.export_manifest/v1 manifest (or it lists a file twice, or a name that is not a plain file of its directory)',
  bundle_manifest_unsigned: 'an export bundle has no manifest.dsse.json: nothing it claims is signed',
  bundle_manifest_signature_invalid:
    "a bundle's manifest.dsse.json is not signed by the key verify trusts (--key, or with --trust-bundle-key a key of keys.json)",
  bundle_manifest_mismatch: "a bundle's manifest.json is not the manifest its envelope signs",
  bundle_directory_mismatch:
    'a bundle sits in another host=/date=/run= directory than its signed manifest names (renamed or copied elsewhere)',
  bundle_signer_unpinned:
    'the signatures were checked only under keys.json, which whoever wrote the bundle chose: an error without --key, a warning with --trust-bundle-key',
  bundle_file_missing: 'a file the bundle manifest lists is not in the bundle (or is a link, not a file)',
  bundle_file_mismatch: 'a file of the bundle does not hash to (or count the rows) its manifest says',
  bundle_file_unlisted: 'the bundle directory holds a file, directory or link its manifest does not list',
  bundle_events_only:
    'a warning: a range export holds events only; their hashes are checked, their batches and checkpoints are not',
  host_digests_mismatch:
    'the host digests stored differ from those the latest host checkpoint signs (one removed or edited with no signed retention record)',
  host_events_missing: 'a host digest lacks events that no binding claimed into a run: they were removed',
  host_unsigned:
    'a warning: no host round has signed the host digests yet (the daemon signs them once a minute)',
  host_events_retained:
    'a warning: host retention removed these host events, as the signed host chain records (docs/retention.md)',
  host_chain_truncated:
    'the anchor file records host chain entries the store no longer holds: the newest entries (or all) were removed',
  host_anchor_mismatch: 'a host chain entry is not the one its anchor line records: it was replaced',
  host_anchor_missing:
    'host chain entries signed since the anchor file began have no line in it: the file (or lines of it) was removed',
  host_anchor_invalid: 'an anchor line is not signed by a key of this store',
  host_anchor_unreadable:
    'a warning: a line of the anchor file is not an anchor line (a crash mid-append tears one)',
  host_anchor_recovered:
    'a warning: host chain entries were anchored when the daemon started, not when they were signed: their removal before that start could not be detected',
} as const;
export type VerifyIssueKind = keyof typeof verifyIssueKinds;

/** Collects issues, capping how many of one kind are listed (all are counted). */
export class VerifyIssues {
  readonly listed: VerifyIssue[] = [];
  errors = 0;
  warnings = 0;
  private readonly perKind = new Map<string, number>();

  constructor(private readonly maxPerKind = 100) {}

  error(kind: VerifyIssueKind, id: string, message: string): void {
    this.errors++;
    this.add({ severity: 'error', kind, id, message });
  }

  /** `total` errors of one kind, of which `listed` are named (the first ones). */
  errorMany(kind: VerifyIssueKind, total: number, listed: readonly { id: string; message: string }[]): void {
    for (const { id, message } of listed) this.error(kind, id, message);
    this.errors += total - listed.length;
    this.perKind.set(kind, (this.perKind.get(kind) ?? 0) + total - listed.length);
  }

  warning(kind: VerifyIssueKind, id: string, message: string): void {
    this.warnings++;
    this.add({ severity: 'warning', kind, id, message });
  }

  /** Adds what `other` found: its listed issues (within this one's caps) and the counts past them. */
  merge(other: VerifyIssues): void {
    for (const issue of other.listed) this.count(issue);
    for (const [kind, total] of other.perKind) {
      const listed = other.listed.filter((issue) => issue.kind === kind);
      const more = total - listed.length;
      if (more <= 0) continue;
      if (listed[0]?.severity === 'warning') this.warnings += more;
      else this.errors += more;
      this.perKind.set(kind, (this.perKind.get(kind) ?? 0) + more);
    }
  }

  private count(issue: VerifyIssue): void {
    if (issue.severity === 'error') this.errors++;
    else this.warnings++;
    this.add(issue);
  }

  private add(issue: VerifyIssue): void {
    const seen = this.perKind.get(issue.kind) ?? 0;
    this.perKind.set(issue.kind, seen + 1);
    if (seen < this.maxPerKind) this.listed.push(issue);
  }
}
