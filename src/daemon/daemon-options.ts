/**
 * The options of `provd daemon`, each declared once: its flag, the value it takes, its environment
 * variable, its default and its help. The command's flags (cli/commands/daemon.ts), the config
 * file's keys and checks (config-file.ts), the environment config.ts reads, the usage's value names
 * (cli/option-values.ts) and docs/daemon-options.md (daemon-options-doc.ts) all read this list.
 * config.ts turns the values given into the DaemonConfig the daemon starts with.
 *
 * Imports nothing: the CLI's usage reads it, and must not load the daemon for that.
 */

/** What an option's value is: how a config file checks it, and whether the flag is a switch. */
export type DaemonOptionKind = 'text' | 'path' | 'integer' | 'duration' | 'size' | 'boolean';

/** One option of `provd daemon`. */
export interface DaemonOption {
  /** The long flag: `--listen`; its config file key is the same without the dashes. */
  readonly flag: `--${string}`;
  /** Where the command and DaemonFlags hold its value. */
  readonly property: string;
  readonly kind: DaemonOptionKind;
  /** The value's name in the usage (`--listen HOST:PORT`); switches take none. */
  readonly valueName?: string;
  /** The environment variable read when neither the flag nor the config file gives it (a switch's: set to 1). */
  readonly env?: string;
  /** The default as the help and the docs state it; none: unset unless given. */
  readonly default?: string;
  /** A switch on by default: shown as `--[no-]name`, and a config file may give `no-name` too. */
  readonly negatable?: true;
  /** The help line; `{env}` and `{default}` stand for those above. */
  readonly help: string;
  /** The page of docs/ that says more, linked from docs/daemon-options.md. */
  readonly page?: string;
}

/** Every option of `provd daemon` but `--config`, in the order a config file's keys are listed. */
export const daemonOptions = [
  {
    flag: '--listen',
    property: 'listen',
    kind: 'text',
    valueName: 'HOST:PORT',
    env: 'PROVD_LISTEN',
    default: '127.0.0.1:8574',
    help: 'HOST:PORT to listen on (also {env}; default {default}); beyond loopback only with a token',
  },
  {
    flag: '--data-dir',
    property: 'dataDir',
    kind: 'path',
    valueName: 'DIR',
    env: 'PROVD_HOME',
    default: '$XDG_DATA_HOME/provd, else ~/.local/share/provd',
    help: 'directory of the DuckDB database (also {env}; default {default})',
  },
  {
    flag: '--auth-token',
    property: 'authToken',
    kind: 'text',
    valueName: 'TOKEN',
    env: 'PROVD_AUTH_TOKEN',
    help: 'require Authorization: Bearer <token> (also {env}); health endpoints stay open',
  },
  {
    flag: '--auth-token-file',
    property: 'authTokenFile',
    kind: 'path',
    valueName: 'FILE',
    env: 'PROVD_AUTH_TOKEN_FILE',
    help: 'read the token from FILE (mode 0600; also {env}, which the CLI reads too): unlike --auth-token, not shown to other users in the process list',
  },
  {
    flag: '--max-body-bytes',
    property: 'maxBodyBytes',
    kind: 'integer',
    valueName: 'BYTES',
    default: '64 MiB',
    help: 'request body limit in bytes (default {default})',
  },
  {
    flag: '--max-ingest-queue-bytes',
    property: 'maxIngestQueueBytes',
    kind: 'integer',
    valueName: 'BYTES',
    default: '256 MiB',
    help: 'ingest bytes in flight before new ingest requests get 429 (default {default})',
  },
  {
    flag: '--max-memory-bytes',
    property: 'maxMemoryBytes',
    kind: 'integer',
    valueName: 'BYTES',
    default: '1 GiB',
    help: "the daemon's resident memory past which new ingest requests get 429 (default {default})",
  },
  {
    flag: '--signing-key',
    property: 'signingKey',
    kind: 'path',
    valueName: 'FILE',
    default: 'made at first start in the data dir, 0600',
    help: 'ed25519 private key (PEM) to sign checkpoints with (default: {default})',
  },
  {
    flag: '--ingest-timeout',
    property: 'ingestTimeout',
    kind: 'duration',
    valueName: 'DURATION',
    default: '120s',
    help: 'how long an ingest request waits for its commit before it is rolled back and answered 503 (default {default})',
  },
  {
    flag: '--spool-ttl',
    property: 'spoolTtl',
    kind: 'duration',
    valueName: 'DURATION',
    default: '2m',
    help: 'how long events wait for a binding before they are kept as unclaimed host activity (default {default})',
  },
  {
    flag: '--spool-max-events',
    property: 'spoolMaxEvents',
    kind: 'integer',
    valueName: 'COUNT',
    default: '1,000,000',
    help: 'most events the spool holds (default {default})',
  },
  {
    flag: '--spool-max-bytes',
    property: 'spoolMaxBytes',
    kind: 'integer',
    valueName: 'BYTES',
    default: '256 MiB',
    help: 'most bytes the spool holds (default {default})',
  },
  {
    flag: '--retain-host-events-age',
    property: 'retainHostEventsAge',
    kind: 'duration',
    valueName: 'DURATION',
    default: 'off',
    page: 'retention.md',
    help: 'remove host events (bound to no run) captured longer ago than DURATION, whole signed batches at a time, recorded in the host chain (e.g. 7d; default {default})',
  },
  {
    flag: '--retain-host-events-bytes',
    property: 'retainHostEventsBytes',
    kind: 'size',
    valueName: 'SIZE',
    default: 'off',
    page: 'retention.md',
    help: 'keep the host events under SIZE (e.g. 2G), removing the oldest whole batches first, recorded in the host chain (default {default})',
  },
  {
    flag: '--verify-host-full-every',
    property: 'verifyHostFullEvery',
    kind: 'duration',
    valueName: 'DURATION',
    default: '1d',
    page: 'retention.md',
    help: 'verify every host event again in the background this often, pausing between chunks (a call to verify-host checks only what changed); DURATION or off (default {default})',
  },
  {
    flag: '--sensor',
    property: 'sensor',
    kind: 'boolean',
    default: 'on',
    negatable: true,
    help: 'the eBPF sensor: {default} by default where the host allows it (root, BTF); --no-sensor turns it off',
  },
  {
    flag: '--capture',
    property: 'capture',
    kind: 'text',
    valueName: 'agents|host',
    env: 'PROVD_CAPTURE',
    default: 'agents',
    page: 'sensor.md',
    help: 'what the sensor stores: {default} (default: only what a binding names, recorded commands and watched agents, filtered in the kernel) or host (every process of the host); bound and all are deprecated names of the two; env {env}',
  },
  {
    flag: '--policy',
    property: 'policy',
    kind: 'path',
    valueName: 'FILE',
    default: 'the built-in policy',
    page: 'operations.md',
    help: 'the policy rules file (YAML or JSON) the gate and ingest decide with; checked at start (default: {default})',
  },
  {
    flag: '--resolv-conf',
    property: 'resolvConf',
    kind: 'path',
    valueName: 'FILE',
    env: 'PROVD_RESOLV_CONF',
    default: '/etc/resolv.conf and /run/systemd/resolve/resolv.conf',
    page: 'security.md',
    help: "the resolv.conf whose nameservers are the host's own resolvers, which DNS may reach without a private_cidr risk (env {env}; default {default}); read at start",
  },
  {
    flag: '--record-user',
    property: 'recordUser',
    kind: 'text',
    valueName: 'USER',
    env: 'PROVD_RECORD_USER',
    default: "the owner of the command's cwd",
    page: 'provenance.md',
    help: 'whom POST /v1/record runs commands as when the daemon is root (a name or uid; env {env}): default {default}, never root unless --record-user root',
  },
  {
    flag: '--keep-hook-text',
    property: 'keepHookText',
    kind: 'boolean',
    env: 'PROVD_KEEP_HOOK_TEXT',
    default: 'off',
    page: 'agents.md',
    help: "store agents' prompts and assistant messages as text, not only by their hash (env {env}=1; default {default})",
  },
  {
    flag: '--host-name',
    property: 'hostName',
    kind: 'text',
    valueName: 'NAME',
    env: 'PROVD_HOST_NAME',
    default: 'the machine name, lower-cased, other than [a-z0-9._-] as _',
    page: 'export.md',
    help: 'the host partition of exports (host=NAME/...; env {env}): default {default}',
  },
  {
    flag: '--mcp-read-only',
    property: 'mcpReadOnly',
    kind: 'boolean',
    env: 'PROVD_MCP_READ_ONLY',
    default: 'off',
    page: 'ai-tools.md',
    help: 'the MCP endpoint (POST /mcp) lists and serves only the read tools and the gate, not bind_scope or record_tool_call (env {env}=1; default {default})',
  },
  {
    flag: '--otlp-endpoint',
    property: 'otlpEndpoint',
    kind: 'text',
    valueName: 'URL',
    default: 'off',
    page: 'operations.md',
    help: 'send each run, once sealed and as it grows, as OpenTelemetry traces to this OTLP/HTTP URL (e.g. http://127.0.0.1:4318/v1/traces; headers from OTEL_EXPORTER_OTLP_HEADERS; default {default})',
  },
  {
    flag: '--attestation-key',
    property: 'attestationKey',
    kind: 'text',
    valueName: 'ed25519|ecdsa-p256',
    env: 'PROVD_ATTESTATION_KEY',
    default: 'ed25519',
    page: 'provenance.md',
    help: 'what signs attestations (provd attest): {default}, the checkpoint key (default), or ecdsa-p256, a P-256 key of their own made in the data dir, for verifiers that take no ed25519 (cosign v3); env {env}',
  },
] as const satisfies readonly DaemonOption[];

type Declared = (typeof daemonOptions)[number];

/** The options of `provd daemon` as given, on the command line or in a config file (all optional). */
export type DaemonFlags = {
  -readonly [O in Declared as O['property']]?: (O['kind'] extends 'boolean' ? boolean : string) | undefined;
};

/** The declaration of the option held in `property`. */
export function daemonOption(property: keyof DaemonFlags): DaemonOption {
  return daemonOptions.find((option) => option.property === property)!;
}

/** The keys a config file gives `option` by: its flag without the dashes, and `no-` that for a negatable switch. */
export function configKeysOf(option: DaemonOption): string[] {
  const key = option.flag.slice(2);
  return option.negatable ? [key, `no-${key}`] : [key];
}

/** The help line of `option`, its environment variable and default filled in. */
export function daemonOptionHelp(option: DaemonOption): string {
  return option.help.replaceAll('{env}', option.env ?? '').replaceAll('{default}', option.default ?? '');
}

/**
 * The value `property` is given: its flag's (or the config file's), else its environment
 * variable's, a switch's only when that is `1`; undefined when neither gives one.
 */
export function givenValue<P extends keyof DaemonFlags>(
  flags: DaemonFlags,
  env: NodeJS.ProcessEnv,
  property: P,
): DaemonFlags[P] {
  if (flags[property] !== undefined) return flags[property];
  const { kind, env: name } = daemonOption(property);
  if (name === undefined) return undefined;
  const value = kind === 'boolean' ? env[name] === '1' || undefined : env[name];
  return value as DaemonFlags[P];
}
