/**
 * One decision over an action's subjects: the most severe of their decisions (kill > quarantine >
 * deny > allow), the rule earlier in the policy's order on a tie, its reason naming the subject that
 * decided ("reads /etc/shadow: secret_path, ..."). What could not be read is judged as the policy's
 * `unreadable_commands` setting says: by what the action names (`judge`, the default), or `deny`.
 */
import type { NamedSubject, SubjectReading } from './named-subject.js';
import { defaultAllowRule, type Decision, type PolicyDecision } from './policy.js';
import type { PolicyEngine } from './policy-engine.js';

/** The rule id of a deny for an action that could not be read whole (`unreadable: deny`). */
export const unreadableRule = 'unreadable_command';

/** A decision over subjects: which subject decided, and what could not be read. */
export interface SubjectsDecision extends PolicyDecision {
  /** The words naming the subject that decided (`reads /etc/shadow`); null when none decided. */
  subject: string | null;
  /** What the action names that only running it would tell; empty when it was read whole. */
  unreadable: string[];
}

const rank: Record<Decision, number> = { allow: 0, deny: 1, quarantine: 2, kill: 3 };

/** The most severe decision of `engine` over `reading`'s subjects. */
export function decideSubjects(engine: PolicyEngine, reading: SubjectReading): SubjectsDecision {
  const unreadable = engine.policy.unreadable_commands ?? 'judge';
  const order = ruleOrder(engine);
  let best: Judged | null = null;
  let advised: Judged | null = null;
  for (const named of reading.subjects) {
    const decided = engine.evaluate(named.subject);
    const { advisory } = decided;
    if (
      advisory !== null &&
      (advised === null || isWorse(advisory.decision, advisory.rule_id, advised.decided.advisory!, order))
    )
      advised = { decided, named };
    if (decided.rule_id === defaultAllowRule) continue;
    if (best === null || isWorse(decided.decision, decided.rule_id, best.decided, order))
      best = { decided, named };
  }
  const notes = reading.unreadable;
  if (unreadable === 'deny' && notes.length > 0 && (best === null || rank[best.decided.decision] < rank.deny))
    return {
      decision: 'deny',
      rule_id: unreadableRule,
      reason: `judged on what it names, and the policy denies what cannot be read whole: ${notes[0]}`,
      severity: 'medium',
      advisory: null,
      subject: null,
      unreadable: notes,
    };
  const chosen = best ?? (advised !== null && advised.decided.decision === 'allow' ? advised : null);
  if (chosen === null)
    return {
      decision: 'allow',
      rule_id: defaultAllowRule,
      reason:
        reading.subjects.length === 0 ? 'names no program, path or host' : 'no rule of the policy matches',
      severity: 'info',
      advisory: null,
      subject: null,
      unreadable: notes,
    };
  const { decided, named } = chosen;
  const ruleWords = decided.advisory === null ? decided.rule_id : `${decided.advisory.rule_id} (detect only)`;
  // the action as given keeps the rule's own reason: the gate's answers to it stay as they were
  const reason = named.given === true ? decided.reason : `${named.names}: ${ruleWords}, ${decided.reason}`;
  return subjectsDecision(decided, reason, named.names, notes);
}

/**
 * `decided` with the reason, subject and notes of a decision over subjects. Its fields are copied
 * one by one: V8 spread `{ ...decided, reason }` into a slow object, about 5 µs of every gate request.
 */
export function subjectsDecision(
  decided: PolicyDecision,
  reason: string,
  subject: string | null,
  unreadable: string[],
): SubjectsDecision {
  return {
    decision: decided.decision,
    rule_id: decided.rule_id,
    reason,
    severity: decided.severity,
    advisory: decided.advisory,
    subject,
    unreadable,
  };
}

interface Judged {
  decided: PolicyDecision;
  named: NamedSubject;
}

/** True when `decision` by `ruleId` outranks `than`: more severe, or as severe by an earlier rule. */
function isWorse(
  decision: Decision,
  ruleId: string,
  than: { decision: Decision; rule_id: string },
  order: ReadonlyMap<string, number>,
): boolean {
  if (rank[decision] !== rank[than.decision]) return rank[decision] > rank[than.decision];
  return (order.get(ruleId) ?? Infinity) < (order.get(than.rule_id) ?? Infinity);
}

const orders = new WeakMap<PolicyEngine, Map<string, number>>();

function ruleOrder(engine: PolicyEngine): ReadonlyMap<string, number> {
  let order = orders.get(engine);
  if (order === undefined) {
    order = new Map(engine.policy.rules.map((rule, index) => [rule.id, index]));
    orders.set(engine, order);
  }
  return order;
}
