/**
 * The built-in policy: exactly the contract's table, first match wins, `default_allow` after it.
 * A rules file may replace a rule by its id, or leave these out (`include_default_rules: false`).
 */
import { metadataAddresses } from '../../telemetry/classify.js';
import type { RiskyType } from '../../telemetry/window-facts.js';
import type { Policy, PolicyRule, RuleMatch } from './policy.js';

const privateBlocks = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];
/**
 * The types a path of which is a file touched. An exec's path is the program it runs, and a DNS
 * query's destination its resolver (often in 10/8 on a cloud VPC): neither is what these rules mean.
 */
const fileTypes = ['file_open', 'file_read', 'file_write', 'file_rename', 'file_unlink'];

/**
 * The block that matches every event of `type`, whatever else it says. Only a risky type of
 * window-facts.ts takes one, so the events the windows count as risky are those these rules judge.
 */
function everyEventOf(type: RiskyType): RuleMatch {
  return { event_types: [type] };
}

export const defaultRules: readonly PolicyRule[] = [
  {
    id: 'metadata_ip',
    description: 'A connection to a cloud instance metadata address, or a command that names one',
    decision: 'quarantine',
    severity: 'high',
    mode: 'enforce',
    reason: 'reaches a cloud instance metadata endpoint, where instance credentials are served',
    match: [
      everyEventOf('metadata_ip'),
      { event_types: ['network_connect'], dst_ips: metadataAddresses },
      { event_types: ['execve'], args_mention_ips: metadataAddresses },
    ],
  },
  {
    id: 'secret_path',
    description: 'A path that names credentials, keys, tokens, .env or /etc/shadow',
    decision: 'kill',
    severity: 'critical',
    mode: 'enforce',
    reason: 'touches a file that holds credentials, keys or tokens',
    match: [everyEventOf('secret_path'), { event_types: fileTypes, secret_paths: true }],
  },
  {
    // before private_cidr: a host's resolver is often in 10/8 (a cloud VPC's) or 192.168/16 (a home
    // router's), and every name lookup would otherwise be a deny; another port to it is still judged
    id: 'host_resolver',
    description: "DNS to one of the host's own resolvers (its resolv.conf nameservers)",
    decision: 'allow',
    severity: 'info',
    mode: 'enforce',
    reason: "DNS to one of this host's configured resolvers (resolv.conf)",
    match: [
      { event_types: ['network_connect', 'private_cidr'], host_resolvers: true, dst_ports: [53] },
      { event_types: ['dns_query'], host_resolvers: true },
    ],
  },
  {
    id: 'private_cidr',
    description: 'A connection into RFC 1918 private address space',
    decision: 'deny',
    severity: 'medium',
    mode: 'enforce',
    reason: 'connects into private network space (RFC 1918)',
    match: [everyEventOf('private_cidr'), { event_types: ['network_connect'], dst_ips: privateBlocks }],
  },
  {
    id: 'privilege_escalation',
    description: 'A setuid or setgid to root',
    decision: 'quarantine',
    severity: 'high',
    mode: 'enforce',
    reason: 'asks for root through setuid or setgid',
    match: [{ event_types: ['setuid', 'setgid'], target_ids: [0] }],
  },
  {
    id: 'ptrace',
    description: 'A ptrace attempt',
    decision: 'quarantine',
    severity: 'high',
    mode: 'enforce',
    reason: 'attempts to trace or inject into another process (ptrace)',
    match: [everyEventOf('ptrace')],
  },
];

export const defaultPolicy: Policy = { source: 'built-in', rules: [...defaultRules] };
