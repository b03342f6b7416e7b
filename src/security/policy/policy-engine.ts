/**
 * The policy engine: a policy compiled once (address sets, path globs), then asked about actions
 * and events, first matching rule wins. Pure and synchronous, so the gate and the normalize workers
 * run the same code; it reads no evidence and stores nothing.
 */
import { posix } from 'node:path';
import { isSecretPath } from '../../telemetry/secret-path.js';
import { AddressSet } from './address-set.js';
import { normalizedPath, PathGlob } from './path-glob.js';
import {
  defaultAllowRule,
  type Policy,
  type PolicyDecision,
  type PolicyRule,
  type PolicySubject,
  type RuleMatch,
} from './policy.js';

/**
 * A subject as the conditions read it: its path normalized, the program's base name and its command
 * line as words, each worked out only when a condition first asks (most events reach no condition
 * past their type: the policy runs for every stored event).
 */
class Subject {
  readonly eventType: string;
  readonly dstIp: string | null;
  readonly dstPort: number | null;
  readonly targetId: number | null;
  private normalized: string | null | undefined;
  private base: string | null | undefined;
  private address: Uint16Array | null | undefined;
  private argv: readonly string[] | undefined;

  constructor(private readonly given: PolicySubject) {
    this.eventType = given.event_type;
    this.dstIp = given.dst_ip ?? null;
    this.dstPort = given.dst_port ?? null;
    this.targetId = given.target_id ?? null;
  }

  /** The destination as an address set compares it, read once for every condition that asks. */
  get dstAddress(): Uint16Array | null {
    if (this.address === undefined)
      this.address = this.dstIp === null ? null : (AddressSet.read(this.dstIp) ?? null);
    return this.address;
  }

  get path(): string | null {
    if (this.normalized === undefined) this.normalized = normalizedPath(this.given.path);
    return this.normalized;
  }

  get program(): string | null {
    if (this.base === undefined) {
      const command = this.given.command ?? null;
      this.base = command === null || command === '' ? null : posix.basename(command);
    }
    return this.base;
  }

  get words(): readonly string[] {
    if (this.argv === undefined) {
      const command = this.given.command ?? null;
      this.argv = [...(command === null ? [] : [command]), ...(this.given.args ?? [])];
    }
    return this.argv;
  }
}

type Condition = (subject: Subject) => boolean;

/** A match block: the event types it takes (undefined: any), and its other conditions. */
interface CompiledBlock {
  types: ReadonlySet<string> | undefined;
  conditions: Condition[];
}

interface CompiledRule {
  rule: PolicyRule;
  /** The rule matches when the type and every condition of any block hold. */
  blocks: CompiledBlock[];
}

/** Most event types whose candidate rules are kept: the gate may be asked about any string. */
const maxCachedTypes = 64;

const allowAll: PolicyDecision = {
  decision: 'allow',
  rule_id: defaultAllowRule,
  reason: 'no rule of the policy matches',
  severity: 'info',
  advisory: null,
};

export class PolicyEngine {
  private readonly rules: CompiledRule[];
  /** Per event type, the rules with a block that takes it, each with only those blocks. */
  private readonly byType = new Map<string, readonly CompiledRule[]>();

  /**
   * Compiles `policy`; throws, naming the rule, for a value it cannot compile. `hostResolvers` are
   * the addresses the `host_resolvers` condition names (none: it matches no destination).
   */
  constructor(
    readonly policy: Policy,
    readonly hostResolvers: readonly string[] = [],
  ) {
    const resolvers = AddressSet.parse(hostResolvers);
    // without resolvers a block asking for one never matches: left out, so the types it names
    // (dns_query) are not judged for nothing
    const possible = (match: RuleMatch): boolean => hostResolvers.length > 0 || match.host_resolvers !== true;
    this.rules = policy.rules.map((rule) => {
      try {
        const blocks = rule.match.map((match) => compileBlock(match, resolvers)); // every block checked
        return { rule, blocks: blocks.filter((_block, index) => possible(rule.match[index]!)) };
      } catch (error) {
        throw new Error(`rule "${rule.id}": ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }

  /**
   * True when some rule could match an event of `type`: ingest judges every stored event, and most
   * types meet no rule, so the subject need not be built for them.
   */
  mayMatch(type: string): boolean {
    return this.rulesFor(type).length > 0;
  }

  /** The decision of the first rule that matches `subject`; `default_allow` when none does. */
  evaluate(subject: PolicySubject): PolicyDecision {
    const rules = this.rulesFor(subject.event_type);
    if (rules.length === 0) return allowAll;
    const read = new Subject(subject);
    for (const { rule, blocks } of rules) {
      if (!blocks.some((block) => block.conditions.every((condition) => condition(read)))) continue;
      if (rule.mode === 'detect')
        return {
          ...allowAll,
          reason: `detect-only rule ${rule.id} matched; allowed`,
          advisory: { rule_id: rule.id, decision: rule.decision, reason: rule.reason },
        };
      return {
        decision: rule.decision,
        rule_id: rule.id,
        reason: rule.reason,
        severity: rule.severity,
        advisory: null,
      };
    }
    return allowAll;
  }

  private rulesFor(type: string): readonly CompiledRule[] {
    const known = this.byType.get(type);
    if (known !== undefined) return known;
    const rules = this.rules.flatMap(({ rule, blocks }) => {
      const taking = blocks.filter((block) => block.types === undefined || block.types.has(type));
      return taking.length === 0 ? [] : [{ rule, blocks: taking }];
    });
    if (this.byType.size < maxCachedTypes) this.byType.set(type, rules);
    return rules;
  }
}

function compileBlock(match: RuleMatch, hostResolvers: AddressSet): CompiledBlock {
  const conditions: Condition[] = [];
  const types = match.event_types === undefined ? undefined : new Set<string>(match.event_types);
  if (match.dst_ips !== undefined) {
    const addresses = AddressSet.parse(match.dst_ips);
    conditions.push((subject) => subject.dstAddress !== null && addresses.hasGroups(subject.dstAddress));
  }
  if (match.dst_ports !== undefined) {
    const ports = new Set(match.dst_ports);
    conditions.push((subject) => subject.dstPort !== null && ports.has(subject.dstPort));
  }
  if (match.host_resolvers !== undefined) {
    const wanted = match.host_resolvers;
    conditions.push(
      (subject) => subject.dstAddress !== null && hostResolvers.hasGroups(subject.dstAddress) === wanted,
    );
  }
  if (match.args_mention_ips !== undefined) {
    const addresses = AddressSet.parse(match.args_mention_ips);
    conditions.push((subject) => addresses.isMentionedIn(subject.words));
  }
  if (match.paths !== undefined) {
    const globs = match.paths.map((glob) => new PathGlob(glob));
    conditions.push((subject) => subject.path !== null && globs.some((glob) => glob.test(subject.path!)));
  }
  if (match.secret_paths !== undefined) {
    const wanted = match.secret_paths;
    conditions.push((subject) => subject.path !== null && isSecretPath(subject.path) === wanted);
  }
  if (match.commands !== undefined) {
    const programs = new Set(match.commands);
    conditions.push((subject) => subject.program !== null && programs.has(subject.program));
  }
  if (match.target_ids !== undefined) {
    const ids = new Set(match.target_ids);
    conditions.push((subject) => subject.targetId !== null && ids.has(subject.targetId));
  }
  if (types === undefined && conditions.length === 0)
    throw new Error('a match block with no condition would match everything');
  return { types, conditions };
}
