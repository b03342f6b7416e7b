/** `provd record [--run R] [--tool-call T] -- CMD ARGS...`: runs a command through the daemon and records it. */
import { once } from 'node:events';
import { constants } from 'node:os';
import { Command, Option } from 'clipanion';
import typia from 'typia';
import { ndjsonType, type RecordStreamEnd } from '../../provenance/record/live-output.js';
import type { RecordAnswer } from '../../provenance/record/record-answer.js';
import { comparedText } from '../../provenance/record/compared-text.js';
import { defaultRecordTimeoutMs } from '../../provenance/record/record-request.js';
import { ProvdError } from '../../shared/errors.js';
import { postDaemon } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { daemonErrorOf } from '../daemon-error.js';
import { visible } from '../output/style.js';

/** Exit codes of the command's fate, as timeout(1) and shells give them. */
const exitTimedOut = 124;
const exitProvdFailed = 125;
const exitNotRun = 127;
/** What the daemon may take beyond the command's own timeout (snapshots, the store write). */
const answerMarginMs = 120_000;

export class RecordCommand extends DaemonClientCommand {
  static override paths = [['record']];

  static override usage = Command.Usage({
    description: 'Run a command through the daemon and record it as a tool call',
    details: `
      Sends \`POST /v1/record\`: the daemon runs CMD with ARGS (no shell) in this directory, in a
      cgroup of its own bound to the tool call, so every runtime event of its process tree
      attributes to it; it stores the exit status, stdout and stderr (first 1 MiB each) and the
      files created, modified and deleted under the directory (what git ignores there, and .git,
      is not looked at). The command's stdout and stderr are printed to the same streams as it
      runs, then a summary line on stderr once it is recorded. Executing needs a daemon with a
      token (\`PROVD_AUTH_TOKEN\`); \`--assert\` stores the tool call as asserted and runs nothing.

      Exit code: the command's own; 128+N when signal N ended it; 124 when it timed out; 127 when
      it could not start; 125 when provd failed (daemon unreachable or refusing, a bad option value);
      2 when the command line cannot be parsed at all.
    `,
    examples: [
      ['Record a test run', '$0 record --run run-42 --tool-call tests -- npm test'],
      ['Assert a call without running it', '$0 record --assert --run run-42 -- curl https://example.com'],
    ],
  });

  run = Option.String('--run', { description: 'the run (default: a new run_… id)' });
  toolCall = Option.String('--tool-call', { description: 'the tool call id (default: a new tc_… id)' });
  timeoutMs = Option.String('--timeout-ms', {
    description: `kill the tree after this long (default ${defaultRecordTimeoutMs})`,
  });
  assert = Option.Boolean('--assert', false, { description: 'store the call as asserted; run nothing' });
  json = Option.Boolean('--json', false, {
    description: 'print the provenance.record/v1 body instead of the output',
  });
  argv = Option.Rest({ name: 'CMD ARGS', required: 1 });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    let timeoutMs: number | undefined;
    try {
      timeoutMs = this.checkTimeout();
    } catch (error) {
      this.refuseUsage(error);
      return exitProvdFailed;
    }
    const [command, ...args] = this.argv;
    const body = {
      ...(this.run !== undefined && { run_id: this.run }),
      ...(this.toolCall !== undefined && { tool_call_id: this.toolCall }),
      command,
      args,
      cwd: process.cwd(),
      ...(timeoutMs !== undefined && { timeout_ms: timeoutMs }),
      execute: !this.assert,
    };
    // the command's output as it runs: asked as NDJSON unless the record itself is what is printed
    const live = !this.json && !this.assert;
    const onNdjsonLine = async (line: unknown): Promise<void> => {
      if (!typia.is<LiveLine>(line)) return;
      const to = line.stream === 'stdout' ? stdout : stderr;
      // a slow terminal slows the reading: the daemon then drops live output and counts it
      // (a closed stdout, `| head`, stops the printing, not the reading of the record)
      if (!to.write(line.data)) await once(to, 'drain').catch(() => undefined);
    };
    let answer;
    try {
      answer = await postDaemon(baseUrl, '/v1/record', Buffer.from(JSON.stringify(body)), {
        contentType: 'application/json',
        idleTimeoutMs: (timeoutMs ?? defaultRecordTimeoutMs) + answerMarginMs,
        ...(live && { headers: { accept: `${ndjsonType}, application/json` }, onNdjsonLine }),
      });
    } catch (error) {
      stderr.write(
        error instanceof ProvdError
          ? `provd: ${error.code}: ${error.message}\n`
          : `provd: PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at ${baseUrl}: ${(error as Error).message}\n`,
      );
      return exitProvdFailed;
    }
    const streamed = typia.is<RecordStreamEnd>(answer.body) ? answer.body : null;
    const record = streamed?.record ?? answer.body;
    if (answer.status !== 200 || !typia.is<RecordAnswer>(record)) {
      const error = daemonErrorOf(answer.body);
      stderr.write(`provd: ${error ?? `unexpected answer from the daemon (HTTP ${answer.status})`}\n`);
      return exitProvdFailed;
    }
    if (this.json) stdout.write(JSON.stringify(record, null, 2) + '\n');
    else if (streamed === null) {
      // a daemon that answered at the end (the command did not start, or an older daemon)
      stdout.write(record.stdout?.text ?? '');
      stderr.write(record.stderr?.text ?? '');
    } else if (streamed.live_output_dropped_bytes > 0)
      stderr.write(
        `provd: ${streamed.live_output_dropped_bytes} bytes of live output were dropped (the terminal read too slowly); ` +
          'the record keeps the first 1 MiB of each stream\n',
      );
    // names of files under cwd are anyone's: no control character of theirs reaches the terminal
    stderr.write(`provd: ${visible(summary(record))}\n`);
    return exitCodeOf(record);
  }

  private checkTimeout(): number | undefined {
    if (this.timeoutMs === undefined) return undefined;
    const value = Number(this.timeoutMs);
    if (!/^\d+$/.test(this.timeoutMs) || value < 1 || value > 86_400_000)
      throw new ProvdError(
        'PROVD_ERR_CONFIG_INVALID',
        `--timeout-ms must be an integer 1..86400000, got "${this.timeoutMs}"`,
      );
    return value;
  }
}

/** One line: what was recorded, how it ended, where to find it. */
function summary(record: RecordAnswer): string {
  const fate =
    record.status === 'asserted'
      ? 'asserted, not run'
      : record.status === 'error'
        ? `not run: ${record.error}`
        : record.signal !== null
          ? `${record.status}, ${record.signal}`
          : `${record.status}, exit ${record.exit_code}`;
  const cgroup = record.cgroup.status === 'unavailable' ? `; ${record.cgroup.message}` : '';
  const kill = record.policy_kill;
  const killed =
    kill === null
      ? ''
      : `; policy rule ${kill.rule_id} ${kill.outcome === 'killed' ? 'killed it' : `kill: ${kill.outcome}`} (event ${kill.event_id})`;
  return (
    `recorded tool call ${record.tool_call_id} of run ${record.run_id}: ${fate}, ` +
    `${effectsText(record)} (${record.object_hash})${cgroup}${killed}`
  );
}

/** The file effects found; never a bare count when the snapshots could not see everything. */
function effectsText(record: RecordAnswer): string {
  const count = record.file_effects.length + record.file_effects_omitted;
  const found = `${count} file effect${count === 1 ? '' : 's'}`;
  const { source, skipped } = record.file_effects_ignore;
  const ignored =
    source === 'git' && skipped > 0 ? `, ${skipped} git-ignored path${skipped === 1 ? '' : 's'} skipped` : '';
  if (record.file_effects_complete) return found + ignored;
  const compared = record.file_effects_compared;
  const part = compared === undefined ? '' : comparedText(compared, 5);
  return (
    `file effects incomplete (${count} found${ignored}): ${record.file_effects_incomplete_reason}` +
    (part === '' ? '' : `; ${part}`)
  );
}

/** A chunk of the command's output, streamed while it runs. */
interface LiveLine {
  stream: 'stdout' | 'stderr';
  data: string;
}

function exitCodeOf(record: RecordAnswer): number {
  if (record.status === 'asserted') return 0;
  if (record.status === 'error') return exitNotRun;
  if (record.status === 'timeout') return exitTimedOut;
  if (record.signal !== null) {
    const number = (constants.signals as Record<string, number>)[record.signal];
    return number === undefined ? exitProvdFailed : 128 + number;
  }
  return record.exit_code ?? exitProvdFailed;
}
