/**
 * A policy (docs/contract.md "Policy preflight and the default policy"): an ordered list of rules,
 * the first that matches deciding. The same policy decides the gate (`POST /v1/security/evaluate`)
 * and judges every ingested and sensed event.
 */

/** Exactly the four decisions of the contract: there is never a fifth. */
export const decisions = ['allow', 'deny', 'quarantine', 'kill'] as const;
export type Decision = (typeof decisions)[number];

export const severities = ['info', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof severities)[number];

/** `enforce` answers the rule's decision; `detect` answers `allow` and names the rule in an advisory. */
export const ruleModes = ['enforce', 'detect'] as const;
export type RuleMode = (typeof ruleModes)[number];

/**
 * What one block of a rule matches: every condition it gives must hold. A condition that lists
 * values holds when any one of them matches.
 */
export interface RuleMatch {
  /** The action's type, after classification (`execve`, `file_open`, `secret_path`, `ptrace`, ...). */
  event_types?: string[];
  /** The destination address: an address, or a CIDR block (`10.0.0.0/8`, `fd00::/8`). */
  dst_ips?: string[];
  /** The destination port (53 for DNS). */
  dst_ports?: number[];
  /**
   * True: the destination is one of the host's own DNS resolvers (its resolv.conf nameservers,
   * read when the daemon starts: src/security/policy/host-resolvers.ts); false: it is not.
   */
  host_resolvers?: boolean;
  /** An address the command or one of its arguments names, however it is written (`2852039166`). */
  args_mention_ips?: string[];
  /** The path, by glob: `*` and `?` within one path segment, `**` across segments. */
  paths?: string[];
  /** True: the path names credentials, keys, tokens, `.env` or `/etc/shadow`. */
  secret_paths?: boolean;
  /** The program run, by its base name (`curl` matches `/usr/bin/curl`). */
  commands?: string[];
  /** The user or group id a setuid or setgid asks for. */
  target_ids?: number[];
}

export interface PolicyRule {
  id: string;
  description: string;
  decision: Decision;
  severity: Severity;
  mode: RuleMode;
  /** Why the rule decides as it does: the decision's `reason`. */
  reason: string;
  /** The rule matches when any one of these blocks matches. */
  match: RuleMatch[];
}

/** The rule that answers when no rule matches. */
export const defaultAllowRule = 'default_allow';

/**
 * How the gate judges a command line it cannot read whole (a variable, a glob, a substitution's
 * output): `judge` by what it names, or `deny` it unless a rule decides worse.
 */
export const unreadableModes = ['judge', 'deny'] as const;
export type UnreadableMode = (typeof unreadableModes)[number];

export interface Policy {
  /** Where it came from: `built-in`, or the rules file's path. */
  source: string;
  rules: PolicyRule[];
  /** The rules file's `unreadable_commands` (absent: `judge`). */
  unreadable_commands?: UnreadableMode;
  /** The agents' hooks (docs/agents.md); absent: the defaults (`fail_open`). */
  hooks?: HookSettings;
}

/** What an agent's hook command does when it cannot reach the daemon. */
export const daemonDownModes = ['fail_open', 'fail_closed'] as const;

/** The policy file's `hooks:` block. */
export interface HookSettings {
  /** `fail_open` (default): the tool call goes on; `fail_closed`: the hook denies it. */
  on_daemon_down: (typeof daemonDownModes)[number];
}

/** What a policy is asked about: a proposed action (the gate) or an event that happened. */
export interface PolicySubject {
  event_type: string;
  command?: string | null;
  args?: readonly string[] | null;
  dst_ip?: string | null;
  dst_port?: number | null;
  path?: string | null;
  target_id?: number | null;
}

/** A decision with the rule that made it. */
export interface PolicyDecision {
  decision: Decision;
  rule_id: string;
  reason: string;
  severity: Severity;
  /** A detect-only rule that matched: what it would have decided. Null when none did. */
  advisory: { rule_id: string; decision: Decision; reason: string } | null;
}
