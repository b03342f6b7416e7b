/** `provd daemon`: runs the daemon in the foreground. */
import { Command, Option } from 'clipanion';
import { resolveConfig } from '../../daemon/config.js';
import { loadConfigFile } from '../../daemon/config-file.js';
import {
  daemonOption,
  daemonOptionHelp,
  daemonOptions,
  type DaemonFlags,
} from '../../daemon/daemon-options.js';
import { ProvdError } from '../../shared/errors.js';

/**
 * The clipanion option of the daemon option held in `property`: its flag and help, a switch or a
 * value. A switch has no default here: absent, the config file or the environment decides.
 */
function declared<P extends keyof DaemonFlags>(property: P): DaemonFlags[P] {
  const option = daemonOption(property);
  const settings = { description: daemonOptionHelp(option) };
  const built =
    option.kind === 'boolean' ? Option.Boolean(option.flag, settings) : Option.String(option.flag, settings);
  return built as DaemonFlags[P];
}

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
  // each built from its declaration in daemon-options.ts, in the order the help lists them
  listen = declared('listen');
  dataDir = declared('dataDir');
  authToken = declared('authToken');
  authTokenFile = declared('authTokenFile');
  maxBodyBytes = declared('maxBodyBytes');
  maxIngestQueueBytes = declared('maxIngestQueueBytes');
  maxMemoryBytes = declared('maxMemoryBytes');
  signingKey = declared('signingKey');
  ingestTimeout = declared('ingestTimeout');
  spoolTtl = declared('spoolTtl');
  spoolMaxEvents = declared('spoolMaxEvents');
  spoolMaxBytes = declared('spoolMaxBytes');
  retainHostEventsAge = declared('retainHostEventsAge');
  retainHostEventsBytes = declared('retainHostEventsBytes');
  verifyHostFullEvery = declared('verifyHostFullEvery');
  policy = declared('policy');
  resolvConf = declared('resolvConf');
  recordUser = declared('recordUser');
  keepHookText = declared('keepHookText');
  hostName = declared('hostName');
  mcpReadOnly = declared('mcpReadOnly');
  otlpEndpoint = declared('otlpEndpoint');
  attestationKey = declared('attestationKey');
  sensor = declared('sensor');
  capture = declared('capture');

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
    for (const { property } of daemonOptions) {
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
