/** `provd daemon`: runs the daemon in the foreground. */
import { Command, Option } from 'clipanion';
import { resolveConfig, type DaemonFlags } from '../../daemon/config.js';
import { configKeys, loadConfigFile } from '../../daemon/config-file.js';
import { ProvdError } from '../../shared/errors.js';

export class DaemonCommand extends Command {
  static override paths = [['daemon']];

  static override usage = Command.Usage({
    description: 'Run the provd daemon in the foreground',
    details: `
      Serves the HTTP API (default 127.0.0.1:8574) over an embedded DuckDB database in the data dir
      (default \`$PROVD_HOME\`, else \`$XDG_DATA_HOME/provd\`, else \`~/.local/share/provd\`).
      SIGINT or SIGTERM stops it cleanly: it stops accepting, drains, checkpoints and closes the database.

      \`--config FILE\` reads the options from a YAML or JSON file, keys named like the long options
      (\`listen\`, \`data-dir\`, \`spool-ttl\`, \`no-sensor\`, ...); an option given on the command line
      wins over the file, and the file over the environment (docs/operations.md).
    `,
    examples: [
      ['Run with defaults', '$0 daemon'],
      ['Require a bearer token', 'PROVD_AUTH_TOKEN=s3cret $0 daemon --listen 127.0.0.1:9000'],
      ['Start from a config file', '$0 daemon --config /etc/provd/config.yaml'],
    ],
  });

  config = Option.String('--config', {
    description:
      'read options from FILE (YAML or JSON, keys named like the long options); options given here win over it',
  });
  listen = Option.String('--listen', {
    description:
      'HOST:PORT to listen on (also PROVD_LISTEN; default 127.0.0.1:8574); beyond loopback only with a token',
  });
  dataDir = Option.String('--data-dir', { description: 'directory of the DuckDB database' });
  authToken = Option.String('--auth-token', {
    description: 'require Authorization: Bearer <token> (also PROVD_AUTH_TOKEN); health endpoints stay open',
  });
  authTokenFile = Option.String('--auth-token-file', {
    description:
      'read the token from FILE (mode 0600; also PROVD_AUTH_TOKEN_FILE, which the CLI reads too): unlike --auth-token, not shown to other users in the process list',
  });
  maxBodyBytes = Option.String('--max-body-bytes', {
    description: 'request body limit in bytes (default 64 MiB)',
  });
  maxIngestQueueBytes = Option.String('--max-ingest-queue-bytes', {
    description: 'ingest bytes in flight before new ingest requests get 429 (default 256 MiB)',
  });
  maxMemoryBytes = Option.String('--max-memory-bytes', {
    description: "the daemon's resident memory past which new ingest requests get 429 (default 1 GiB)",
  });
  signingKey = Option.String('--signing-key', {
    description:
      'ed25519 private key (PEM) to sign checkpoints with (default: made at first start in the data dir, 0600)',
  });
  ingestTimeout = Option.String('--ingest-timeout', {
    description:
      'how long an ingest request waits for its commit before it is rolled back and answered 503 (default 120s)',
  });
  spoolTtl = Option.String('--spool-ttl', {
    description:
      'how long events wait for a binding before they are kept as unclaimed host activity (default 2m)',
  });
  spoolMaxEvents = Option.String('--spool-max-events', {
    description: 'most events the spool holds (default 1,000,000)',
  });
  spoolMaxBytes = Option.String('--spool-max-bytes', {
    description: 'most bytes the spool holds (default 256 MiB)',
  });
  retainHostEventsAge = Option.String('--retain-host-events-age', {
    description:
      'remove host events (bound to no run) captured longer ago than DURATION, whole signed batches at a time, recorded in the host chain (e.g. 7d; default off)',
  });
  retainHostEventsBytes = Option.String('--retain-host-events-bytes', {
    description:
      'keep the host events under SIZE (e.g. 2G), removing the oldest whole batches first, recorded in the host chain (default off)',
  });
  verifyHostFullEvery = Option.String('--verify-host-full-every', {
    description:
      'verify every host event again in the background this often, pausing between chunks (a call to verify-host checks only what changed); DURATION or off (default 1d)',
  });

  policy = Option.String('--policy', {
    description:
      'the policy rules file (YAML or JSON) the gate and ingest decide with; checked at start (default: the built-in policy)',
  });

  resolvConf = Option.String('--resolv-conf', {
    description:
      "the resolv.conf whose nameservers are the host's own resolvers, which DNS may reach without a private_cidr risk (env PROVD_RESOLV_CONF; default /etc/resolv.conf and /run/systemd/resolve/resolv.conf); read at start",
  });

  recordUser = Option.String('--record-user', {
    description:
      "whom POST /v1/record runs commands as when the daemon is root (a name or uid; env PROVD_RECORD_USER): default the owner of the command's cwd, never root unless --record-user root",
  });

  keepHookText = Option.Boolean('--keep-hook-text', {
    description:
      "store agents' prompts and assistant messages as text, not only by their hash (env PROVD_KEEP_HOOK_TEXT=1; default off)",
  });

  hostName = Option.String('--host-name', {
    description:
      'the host partition of exports (host=NAME/...; env PROVD_HOST_NAME): default the machine name, lower-cased, other than [a-z0-9._-] as _',
  });

  mcpReadOnly = Option.Boolean('--mcp-read-only', {
    description:
      'the MCP endpoint (POST /mcp) lists and serves only the read tools and the gate, not bind_scope or record_tool_call (env PROVD_MCP_READ_ONLY=1; default off)',
  });

  otlpEndpoint = Option.String('--otlp-endpoint', {
    description:
      'send each run, once sealed and as it grows, as OpenTelemetry traces to this OTLP/HTTP URL (e.g. http://127.0.0.1:4318/v1/traces; headers from OTEL_EXPORTER_OTLP_HEADERS; default off)',
  });

  attestationKey = Option.String('--attestation-key', {
    description:
      'what signs attestations (provd attest): ed25519, the checkpoint key (default), or ecdsa-p256, a P-256 key of their own made in the data dir, for verifiers that take no ed25519 (cosign v3); env PROVD_ATTESTATION_KEY',
  });

  // no default here: absent, the config file (or the built-in default, on) decides
  sensor = Option.Boolean('--sensor', {
    description:
      'the eBPF sensor: on by default where the host allows it (root, BTF); --no-sensor turns it off',
  });

  capture = Option.String('--capture', {
    description:
      'what the sensor stores: agents (default: only what a binding names, recorded commands and watched agents, filtered in the kernel) or host (every process of the host); bound and all are deprecated names of the two; env PROVD_CAPTURE',
  });

  async execute(): Promise<number> {
    try {
      const config = resolveConfig(await this.flags());
      // loaded here, not at the top: every other command (the MCP server among them) is a thin HTTP
      // client that must not map DuckDB and uWebSockets.js into its process
      const [{ runDaemon }, { mcpHttpEndpoint }] = await Promise.all([
        import('../../daemon/daemon.js'),
        import('../../ai/mcp-http.js'),
      ]);
      const code = await runDaemon(config, [mcpHttpEndpoint({ readOnly: config.mcpReadOnly })]);
      process.exit(code); // keep-alive client connections must not hold the process open
    } catch (error) {
      if (!(error instanceof ProvdError)) throw error;
      this.context.stderr.write(`provd: ${error.code}: ${error.message}\n`);
      return 2;
    }
  }

  /** The command line's options over the config file's. */
  private async flags(): Promise<DaemonFlags> {
    const given: DaemonFlags = {};
    for (const [property] of Object.values(configKeys)) {
      const value = this[property];
      if (value !== undefined) Object.assign(given, { [property]: value });
    }
    if (this.config === undefined) return given;
    const file = await loadConfigFile(this.config);
    // a token given here replaces the file's, whichever way either gives it
    if (given.authToken !== undefined || given.authTokenFile !== undefined) {
      delete file.authToken;
      delete file.authTokenFile;
    }
    return { ...file, ...given };
  }
}
