/**
 * A rules file (`provd daemon --policy FILE`): YAML (`.yaml`, `.yml`) or JSON (`.json`), read and
 * checked once at start. Every mistake is refused with a message that names the rule and the field,
 * and the daemon does not start: a policy that half-loads would decide what nobody wrote.
 *
 *   include_default_rules: true     # optional (true): the built-in rules follow the file's
 *   unreadable_commands: judge      # optional (judge): deny a command line the gate cannot read whole
 *   rules:
 *     - id: no-netcat               # letters, digits, _ . -; unique; `default_allow` is reserved
 *       decision: deny              # allow | deny | quarantine | kill
 *       severity: high              # optional (medium): info | low | medium | high | critical
 *       mode: enforce               # optional (enforce): detect answers allow, with an advisory
 *       description: netcat         # optional
 *       reason: opens raw sockets   # optional (the description, else "rule ID matched")
 *       match:                      # a block, or a list of blocks (any one matching is enough)
 *         commands: [nc, ncat]      # also event_types, dst_ips, dst_ports, host_resolvers, ...
 *
 * A file rule with the id of a built-in rule replaces it; the other built-in rules follow the
 * file's, in the contract's order, unless `include_default_rules: false`.
 */
import { yaml } from '../../shared/yaml.js';
import { eventTypes } from '../../model/event.js';
import { defaultRules } from './default-policy.js';
import {
  decisions,
  defaultAllowRule,
  ruleModes,
  severities,
  unreadableModes,
  type Policy,
  type PolicyRule,
  type RuleMatch,
  type HookSettings,
  daemonDownModes,
} from './policy.js';
import { PolicyEngine } from './policy-engine.js';
import { policyErrorLine } from './policy-file-line.js';
import { readPolicyBytes } from './policy-file-read.js';

/** A rules file larger than this is refused: a policy is a few hundred rules at most. */
const maxFileBytes = 1024 * 1024;

/** Levels of objects and lists a policy needs: the file, rules, a rule, match blocks, a block, a list. */
const maxNesting = 8;
/** Flow collections (`[`, `{`) open at once past which a YAML file is not parsed at all. */
const maxFlowNesting = 64;
/** Alias expansions a YAML policy may make (the yaml package counts them). */
const maxAliases = 100;

const fileKeys = ['include_default_rules', 'rules', 'unreadable_commands', 'hooks'];
const hookKeys = ['on_daemon_down'];
const ruleKeys = ['id', 'description', 'decision', 'severity', 'mode', 'reason', 'match'];
const matchKeys: (keyof RuleMatch)[] = [
  'event_types',
  'dst_ips',
  'dst_ports',
  'host_resolvers',
  'args_mention_ips',
  'paths',
  'secret_paths',
  'commands',
  'target_ids',
];
const ruleId = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Why a rules file was refused; `line` (1-based) points at the offending part when it can be found. */
export class PolicyFileError extends Error {
  constructor(
    message: string,
    /** `unreadable`: missing, not a regular file, or not readable; `invalid`: read, but wrong. */
    readonly reason: 'unreadable' | 'invalid' = 'invalid',
    readonly line?: number,
  ) {
    super(message);
  }
}

/**
 * Reads, checks and compiles the rules file at `path` (with the host's resolvers, for its
 * `host_resolvers` conditions); throws PolicyFileError saying what is wrong.
 */
export async function loadPolicyFile(
  path: string,
  hostResolvers: readonly string[] = [],
): Promise<PolicyEngine> {
  // the text once read, so a refusal can name its line
  const read: { text?: string } = {};
  const fail = (message: string): never => {
    throw new PolicyFileError(
      `policy ${path}: ${message}`,
      'invalid',
      read.text === undefined ? undefined : policyErrorLine(read.text, message),
    );
  };
  const format = /\.json$/i.test(path)
    ? 'json'
    : /\.ya?ml$/i.test(path)
      ? 'yaml'
      : fail('the file name must end in .json, .yaml or .yml');
  const { bytes, size } = await readPolicyBytes(path, maxFileBytes, (message) => {
    throw new PolicyFileError(`policy ${path}: ${message}`, 'unreadable');
  });
  if (size > maxFileBytes) fail(`the file holds ${size} bytes, more than ${maxFileBytes}`);
  const text = (read.text = bytes.toString('utf8'));
  const value = format === 'json' ? parseJson(text, fail) : parseYaml(text, fail);
  const depth = nestingDepth(value);
  if (depth > maxNesting)
    fail(
      `the file nests ${depth} levels deep; a policy needs at most ${maxNesting} (rules, a rule, its match, a list)`,
    );
  const policy = parsePolicy(value, path, fail);
  try {
    return new PolicyEngine(policy, hostResolvers);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

function parseJson(text: string, fail: (message: string) => never): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return fail(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function parseYaml(text: string, fail: (message: string) => never): unknown {
  const deep = flowNestedPast(text, maxFlowNesting);
  if (deep !== undefined)
    fail(`nested too deep to parse (${deep.line}:${deep.col}); a policy needs at most ${maxNesting} levels`);
  const document = yaml().parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const error = document.errors[0];
  // the parser recurses per level: a file nested thousands deep ends its stack
  if (error?.message.includes('call stack'))
    fail(
      `nested too deep to parse (${error.linePos?.[0].line ?? 1}:${error.linePos?.[0].col ?? 1}); a policy needs at most ${maxNesting} levels`,
    );
  if (error !== undefined) fail(`not valid YAML: ${error.message}`);
  try {
    return document.toJS({ maxAliasCount: maxAliases }) as unknown;
  } catch (error) {
    // the yaml package's guard against alias bombs (a billion laughs) throws a ReferenceError
    if (error instanceof ReferenceError)
      return fail(`its aliases expand past ${maxAliases} nodes (an alias bomb?): write the rules out`);
    return fail(`not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Where `text` first holds more than `limit` flow collections (`[`, `{`) open at once; brackets in
 * quoted text count too, which no policy comes near. The YAML parser recurses per level: thousands
 * of levels end its stack, and V8 may then fail to compile a regular expression it needs there,
 * which ends the process instead of throwing.
 */
function flowNestedPast(text: string, limit: number): { line: number; col: number } | undefined {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x0a) {
      line++;
      lineStart = at + 1;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return { line, col: at - lineStart + 1 };
    } else if ((code === 0x5d || code === 0x7d) && depth > 0) depth--;
  }
  return undefined;
}

/** How deep `value` nests, walked without recursion (a hostile file may nest thousands deep). */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > maxNesting) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** The file's policy: its rules, then the built-in ones it does not replace (unless left out). */
export function parsePolicy(value: unknown, source: string, fail: (message: string) => never): Policy {
  const file = objectWith(value, fileKeys, 'the file', fail);
  const include = file['include_default_rules'] ?? true;
  if (typeof include !== 'boolean')
    fail(`include_default_rules must be true or false, not ${describe(include)}`);
  const rules = file['rules'] ?? [];
  if (!Array.isArray(rules)) fail(`rules must be a list of rules, not ${describe(rules)}`);
  const parsed = (rules as unknown[]).map((rule, index) => parseRule(rule, `rules[${index}]`, fail));
  const ids = new Set<string>();
  for (const rule of parsed) {
    if (ids.has(rule.id)) fail(`rule id "${rule.id}" is given twice`);
    ids.add(rule.id);
  }
  const kept = include === true ? defaultRules.filter((rule) => !ids.has(rule.id)) : [];
  const policy: Policy = { source, rules: [...parsed, ...kept] };
  if (file['unreadable_commands'] !== undefined)
    policy.unreadable_commands = oneOf(
      file['unreadable_commands'],
      unreadableModes,
      'unreadable_commands',
      fail,
    );
  if (file['hooks'] !== undefined) policy.hooks = parseHooks(file['hooks'], fail);
  return policy;
}

/** `hooks: { on_daemon_down: fail_open | fail_closed }`. */
function parseHooks(value: unknown, fail: (message: string) => never): HookSettings {
  const hooks = objectWith(value, hookKeys, 'hooks', fail);
  const mode = hooks['on_daemon_down'] ?? 'fail_open';
  return { on_daemon_down: oneOf(mode, daemonDownModes, 'hooks.on_daemon_down', fail) };
}

function parseRule(value: unknown, at: string, fail: (message: string) => never): PolicyRule {
  const rule = objectWith(value, ruleKeys, at, fail);
  const id = rule['id'];
  if (typeof id !== 'string' || !ruleId.test(id))
    fail(`${at}: id must be 1 to 64 letters, digits, "_", "." or "-", not ${describe(id)}`);
  const where = `${at} (${String(id)})`;
  if (id === defaultAllowRule)
    fail(`${where}: the id ${defaultAllowRule} is reserved for the rule that answers when none matches`);
  const decision = oneOf(rule['decision'], decisions, `${where}: decision`, fail);
  const severity =
    rule['severity'] === undefined
      ? 'medium'
      : oneOf(rule['severity'], severities, `${where}: severity`, fail);
  const mode =
    rule['mode'] === undefined ? 'enforce' : oneOf(rule['mode'], ruleModes, `${where}: mode`, fail);
  const description = optionalText(rule['description'], `${where}: description`, fail) ?? '';
  const reason =
    optionalText(rule['reason'], `${where}: reason`, fail) ??
    (description !== '' ? description : `rule ${String(id)} matched`);
  const given = rule['match'];
  if (given === undefined) fail(`${where}: match is missing: a rule needs at least one condition`);
  const blocks = Array.isArray(given) ? (given as unknown[]) : [given];
  if (blocks.length === 0) fail(`${where}: match is an empty list: the rule would never match`);
  const match = blocks.map((block, index) =>
    parseMatch(block, `${where}: match${Array.isArray(given) ? `[${index}]` : ''}`, fail),
  );
  return { id: id, description, decision, severity, mode, reason, match };
}

function parseMatch(value: unknown, at: string, fail: (message: string) => never): RuleMatch {
  const block = objectWith(value, matchKeys, at, fail);
  const match: RuleMatch = {};
  if (block['event_types'] !== undefined) {
    match.event_types = texts(block['event_types'], `${at}.event_types`, fail);
    for (const [index, type] of match.event_types.entries())
      if (!(eventTypes as readonly string[]).includes(type))
        fail(`${at}.event_types[${index}]: "${type}" is not an event type (${eventTypes.join(', ')})`);
  }
  for (const key of ['dst_ips', 'args_mention_ips', 'paths', 'commands'] as const)
    if (block[key] !== undefined) match[key] = texts(block[key], `${at}.${key}`, fail);
  for (const key of ['secret_paths', 'host_resolvers'] as const)
    if (block[key] !== undefined) {
      if (typeof block[key] !== 'boolean')
        fail(`${at}.${key} must be true or false, not ${describe(block[key])}`);
      match[key] = block[key];
    }
  if (block['dst_ports'] !== undefined) {
    const ports = block['dst_ports'];
    if (
      !Array.isArray(ports) ||
      ports.length === 0 ||
      !ports.every((port) => Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65535)
    )
      fail(`${at}.dst_ports must be a non-empty list of ports (integers from 0 to 65535)`);
    match.dst_ports = ports as number[];
  }
  if (block['target_ids'] !== undefined) {
    const ids = block['target_ids'];
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      !ids.every((id) => Number.isInteger(id) && (id as number) >= 0 && (id as number) <= 0xffffffff)
    )
      fail(`${at}.target_ids must be a non-empty list of user or group ids (integers from 0 to 4294967295)`);
    match.target_ids = ids as number[];
  }
  if (Object.keys(match).length === 0)
    fail(`${at}: a match block needs at least one condition (${matchKeys.join(', ')})`);
  return match;
}

/** `value` as an object with no key outside `allowed`. */
function objectWith(
  value: unknown,
  allowed: readonly string[],
  at: string,
  fail: (message: string) => never,
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(`${at} must be an object, not ${describe(value)}`);
  for (const key of Object.keys(value))
    if (!allowed.includes(key)) fail(`${at}: unknown field "${key}" (known: ${allowed.join(', ')})`);
  return value as Record<string, unknown>;
}

function texts(value: unknown, at: string, fail: (message: string) => never): string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => typeof item === 'string' && item !== '')
  )
    return fail(`${at} must be a non-empty list of non-empty strings, not ${describe(value)}`);
  return value as string[];
}

function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  at: string,
  fail: (message: string) => never,
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    return fail(`${at} must be one of ${allowed.join(', ')}, not ${describe(value)}`);
  return value as T;
}

function optionalText(value: unknown, at: string, fail: (message: string) => never): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return fail(`${at} must be a string, not ${describe(value)}`);
  return value;
}

/** A value as a message shows it: JSON, cut at 60 characters. */
function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  return (JSON.stringify(value) as string | undefined)?.slice(0, 60) ?? typeof value;
}
