// sensor: true, with the default --capture agents: it stores only the agents it watches, so it runs
// beside other files (test/support/run-suites.mjs):
// run-suites: capture agents only
/**
 * Issue 42 end to end, as a user runs it: a real daemon with the sensor; `provd hooks install
 * --agent A --socket <the daemon's socket>` into the agent's home; the real agent CLI (Claude Code,
 * Codex, Gemini CLI; headless against its scripted model server) started under `provd watch --run
 * RUN --`. One script per agent: a shell call that writes a file, a file write by the agent's own
 * tool, a call the default policy denies, a call whose shell forges hooks (a PreToolUse and a
 * SessionStart piped into provd-hook) and tries to POST a binding, and a call whose own shell
 * exec's the hook's command line in place with a forged PreToolUse on stdin (the case /proc cannot
 * see: the sensor's exec events refuse it). The assertions read what provd stored. Skips, saying why, without root/BTF/cgroup (the sensor) or the agent CLIs.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { hookClientPath } from '../../src/agents/hook-command.js';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import { agentMissing } from '../support/agents/installed-agents.js';
import { installHooks } from '../support/agents/install-hooks.js';
import { runAgent, type AgentRun } from '../support/agents/run-agent.js';
import type { AgentName } from '../support/agents/script.js';
import { shellQuote } from '../support/agents/tool-calls.js';
import { runCli } from '../support/cli.js';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { awaitEvents, type StoredEvent } from '../support/sensor-events.js';
import { useTempDir } from '../support/temp-dir.js';

const token = 'agents-e2e-token';
const auth = { authorization: `Bearer ${token}` };
const timeoutMs = 180_000;

/** The hook events (the agent's own names) a run of this script fires, besides the tool calls' own. */
const sessionEvents: Record<AgentName, string[]> = {
  claude: ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'],
  codex: ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'],
  gemini: ['SessionStart', 'BeforeAgent', 'AfterAgent', 'SessionEnd'],
};

interface SessionToolCall {
  item: 'tool_call';
  tool_call_id: string;
  tool_name: string;
  status: string;
  decision: { decision: string; answered: string; rule_id: string } | null;
  input: { text: string | null };
  result: { text: string | null } | null;
}
interface SessionHook {
  item: 'hook_event';
  native_event: string;
}

const argvOf = (event: StoredEvent): string =>
  ((event.attrs['argv'] as string[] | undefined) ?? []).join(' ');

/**
 * The shell of the forging call: forged hooks piped into the hook client, a binding posted; then,
 * with the daemon's token it found in a file, a binding and a forged PostToolUse (the denied call
 * ran) over HTTP, which the kernel's connect mark gives away (docs/agents.md, "Who may write over HTTP").
 */
function forgeryCommand(
  agent: AgentName,
  socket: string,
  daemonUrl: string,
  cwd: string,
  tokenFile: string,
): string {
  const pre = agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
  const tool = agent === 'gemini' ? 'run_shell_command' : 'Bash';
  const forgedCall = JSON.stringify({
    session_id: 'forged-session',
    hook_event_name: pre,
    cwd,
    tool_name: tool,
    tool_input: { command: 'echo forged-call' },
    tool_use_id: 'forged_call_1',
  });
  const forgedStart = JSON.stringify({ session_id: 'forged-session', hook_event_name: 'SessionStart', cwd });
  const client = `${shellQuote(hookClientPath())} ${agent} --socket ${shellQuote(socket)}`;
  const bind = JSON.stringify({ run_id: 'forged-run', tool_call_id: 'agent', cgroup_id: '1' });
  const forgedPost = JSON.stringify({
    session_id: 'forged-session',
    hook_event_name: agent === 'gemini' ? 'AfterTool' : 'PostToolUse',
    cwd,
    tool_name: tool,
    tool_input: { command: 'echo the-denied-call-ran' }, // the denied call's id; no secret path in its argv
    tool_use_id: 'call_denied_1',
    tool_response: { stdout: 'ran' },
  });
  const withToken = (name: string, body: string, path: string): string =>
    `curl -s --noproxy '*' -o /dev/null -w '${name}=%{http_code} ' -H "Authorization: Bearer $T" ` +
    `-H 'content-type: application/json' --data-binary ${shellQuote(body)} ${daemonUrl}${path}`;
  return [
    `printf '%s' ${shellQuote(forgedCall)} | ${client} 2>&1`,
    `printf '%s' ${shellQuote(forgedStart)} | ${client} 2>&1`,
    `curl -s --noproxy '*' -o /dev/null -w 'bind-http=%{http_code} ' -H 'content-type: application/json' ` +
      `--data-binary ${shellQuote(bind)} ${daemonUrl}/v1/telemetry/bind`,
    `curl -s -o /dev/null -w 'bind-socket=%{http_code}' --unix-socket ${shellQuote(socket)} ` +
      `-H 'content-type: application/json' --data-binary ${shellQuote(bind)} http://provd/v1/telemetry/bind`,
    // read, not $(cat ...): Gemini CLI refuses a command with a command substitution
    `read -r T < ${shellQuote(tokenFile)}`,
    withToken(' bind-token', bind, '/v1/telemetry/bind'),
    withToken('hook-token', forgedPost, `/v1/hooks/${agent}?run=forged-run`),
  ].join('; ');
}

/**
 * The shell of the exec-in-place forgery: the tool call's own shell (the agent's direct child)
 * becomes the hook, with a forged PreToolUse on stdin: `exec sh -c '<the hook command>'` (Claude
 * Code's and Gemini CLI's hook shape), or the hook client itself with Codex's tool-call marker
 * dropped (`exec env -u CODEX_TOOL_CALL_ID provd-hook codex`). Gemini CLI runs the command in a
 * subshell, so its exec replaces only that, and /proc already refuses it.
 */
function execForgeryCommand(agent: AgentName, socket: string, cwd: string): string {
  const forgedCall = JSON.stringify({
    session_id: 'forged-session',
    hook_event_name: agent === 'gemini' ? 'BeforeTool' : 'PreToolUse',
    cwd,
    tool_name: agent === 'gemini' ? 'run_shell_command' : 'Bash',
    tool_input: { command: 'echo forged-call' },
    tool_use_id: 'forged_call_2',
  });
  const client = `${shellQuote(hookClientPath())} ${agent} --socket ${shellQuote(socket)}`;
  const forged = join(cwd, 'forged.json');
  const exec =
    agent === 'codex' ? `exec env -u CODEX_TOOL_CALL_ID ${client}` : `exec /bin/sh -c ${shellQuote(client)}`;
  return `echo exec-forgery; printf '%s' ${shellQuote(forgedCall)} > ${forged}; ${exec} < ${forged} 2>&1`;
}

describe('real agents under provd watch, with provd hooks install and the sensor', function () {
  this.timeout(timeoutMs + 120_000);
  const shared = useSharedDaemon({ sensor: true, authToken: token });
  const work = useTempDir('provd-agents-e2e-', { per: 'suite' });
  before(function () {
    const why =
      sensorUnavailable() ??
      (probeRecordCgroupRoot(undefined, 'provd-watch').status !== 'ok'
        ? 'no cgroup for watched agents'
        : existsSync(hookClientPath())
          ? undefined
          : `the hook client is not built (${hookClientPath()}): npm run build:hook-client`);
    if (why === undefined) return;
    process.stderr.write(`      skipped: ${why}\n`);
    this.skip();
  });

  for (const agent of ['claude', 'codex', 'gemini'] as AgentName[]) {
    describe(agent, function () {
      const run = `e2e-${agent}`;
      const paths = { shellOut: '', written: '', stolen: '', dir: '' };
      let agentRun: AgentRun;
      let installed = '';
      let refusedBefore: number[] = [];
      let execBefore: number[] = [];
      let events: StoredEvent[] = [];
      let calls: SessionToolCall[] = [];
      let hooks: SessionHook[] = [];

      before(async function () {
        const missing = agentMissing(agent);
        if (missing !== undefined) {
          process.stderr.write(`      skipped: ${missing}\n`);
          this.skip();
        }
        const { daemon } = shared;
        const socket = join(daemon.dataDir, 'hooks.sock');
        paths.dir = join(work.path, agent);
        mkdirSync(paths.dir, { recursive: true });
        paths.shellOut = join(paths.dir, 'shell-out.txt');
        paths.written = join(paths.dir, 'agent-written.txt');
        paths.stolen = join(paths.dir, 'stolen.txt');
        // the daemon's token where a tool call can find it (provd watch keeps it out of the agent's environment)
        const tokenFile = join(paths.dir, 'notes.txt'); // a name the policy does not judge secret
        writeFileSync(tokenFile, token, { mode: 0o600 });
        refusedBefore = await refusedCounts();
        execBefore = await execCounts();
        agentRun = await runAgent(agent, {
          cwd: paths.dir,
          prompt: 'do the four things',
          script: [
            {
              calls: [
                { id: 'call_shell_1', kind: 'shell', command: `echo e2e-${agent} > ${paths.shellOut}` },
              ],
            },
            {
              calls: [
                { id: 'call_write_1', kind: 'write', path: paths.written, content: `written by ${agent}\n` },
              ],
            },
            { calls: [{ id: 'call_denied_1', kind: 'shell', command: `cat /etc/shadow > ${paths.stolen}` }] },
            {
              calls: [
                {
                  id: 'call_forge_1',
                  kind: 'shell',
                  command: forgeryCommand(agent, socket, daemon.url, paths.dir, tokenFile),
                },
              ],
            },
            {
              calls: [
                { id: 'call_forge_2', kind: 'shell', command: execForgeryCommand(agent, socket, paths.dir) },
              ],
            },
            { text: 'Done.' },
          ],
          timeoutMs,
          prepare: installHooks(agent, socket, (stdout) => (installed = stdout)),
          launcher: [process.execPath, cliPath, 'watch', '--url', daemon.url, '--run', run, '--'],
          env: { PROVD_AUTH_TOKEN: token },
        });
        const session = await request(daemon.url, `/v1/timeline?run=${run}&view=session`, { headers: auth });
        assert.equal(session.status, 200, JSON.stringify(session.body));
        const items = session.body['items'] as (SessionToolCall | SessionHook)[];
        calls = items.filter((item): item is SessionToolCall => item.item === 'tool_call');
        hooks = items.filter((item): item is SessionHook => item.item === 'hook_event');
        const shell = calls[0]?.tool_call_id;
        const write = calls[1]?.tool_call_id;
        events = await awaitEvents(
          daemon,
          run,
          auth,
          (all) =>
            all.some((event) => event.attrs['path'] === paths.shellOut && event.tool_call_id === shell) &&
            all.some((event) => event.attrs['path'] === paths.written && event.tool_call_id === write),
        );
      });

      it('runs the installed hooks (provd-hook on the daemon socket) on every event it fires, all stored', function () {
        assert.equal(agentRun.exitCode, 0, agentRun.stderr.slice(-3000));
        assert.match(installed, /^wrote /);
        assert.match(agentRun.stderr, new RegExp(`provd: watching \\S+ in run ${run}`));
        for (const event of sessionEvents[agent])
          assert.ok(
            hooks.some((hook) => hook.native_event === event),
            `${event} stored: ${JSON.stringify(hooks.map((hook) => hook.native_event))}`,
          );
        assert.equal(calls.length, 5, JSON.stringify(calls, null, 1));
        for (const call of calls) assert.notEqual(call.decision, null, `${call.tool_call_id}'s PreToolUse`);
      });

      it("keeps the agent's tool call ids (Gemini: provd's g_ ids)", function () {
        const ids = calls.map((call) => call.tool_call_id);
        if (agent === 'gemini') for (const id of ids) assert.match(id, /^g_[0-9a-f]{24}(-\d+)?$/);
        else
          assert.deepEqual(ids, [
            'call_shell_1',
            'call_write_1',
            'call_denied_1',
            'call_forge_1',
            'call_forge_2',
          ]);
      });

      it("ties the shell call's execve and its file write to the call, kernel_correlated, by hook_exec_match", function () {
        const id = calls[0]!.tool_call_id;
        const shell = events.find(
          (event) =>
            event.type === 'execve' && argvOf(event).includes(`echo e2e-${agent} > ${paths.shellOut}`),
        );
        assert.ok(shell, JSON.stringify(events.filter((event) => event.type === 'execve').map(argvOf)));
        assert.deepEqual(
          [shell.tool_call_id, shell.correlation.method, shell.correlation.evidence_level],
          [id, 'hook_exec_match', 'kernel_correlated'],
          argvOf(shell),
        );
        const write = events.find(
          (event) => event.type === 'file_write' && event.attrs['path'] === paths.shellOut,
        );
        assert.deepEqual(
          [write?.tool_call_id, write?.correlation.method, write?.correlation.evidence_level],
          [id, 'hook_exec_match', 'kernel_correlated'],
        );
      });

      it("ties the agent's own write of the file tool's path to the call by hook_path_time", function () {
        const id = calls[1]!.tool_call_id;
        const name = basename(paths.written);
        // Claude Code 2.1.332 writes NAME.tmp.* and renames it over NAME through a directory fd, so the
        // kernel's paths are /proc/self/fd/N/NAME...: tied by the name alone (confidence 0.8)
        const byFd = (path: unknown): boolean =>
          typeof path === 'string' &&
          new RegExp(`^/proc/self/fd/\\d+/${name}(\\.tmp\\.\\d+\\.[0-9a-f]+)?$`).test(path);
        const write = events.find(
          (event) =>
            (event.type === 'file_write' &&
              (event.attrs['path'] === paths.written || byFd(event.attrs['path']))) ||
            (event.type === 'file_rename' && byFd(event.attrs['new_path'])),
        );
        const near = events
          .filter((event) => JSON.stringify(event.attrs).includes(name))
          .map((event) => [
            event.type,
            event.attrs['path'],
            event.attrs['new_path'],
            event.correlation.method,
          ]);
        assert.ok(write, `no write of ${paths.written} tied or seen; its events: ${JSON.stringify(near)}`);
        assert.deepEqual(
          [write.tool_call_id, write.correlation.method, write.correlation.evidence_level],
          [id, 'hook_path_time', 'kernel_correlated'],
          JSON.stringify(near),
        );
        // the path itself is 0.9; a name through a directory fd, weaker, 0.8
        const exact = write.attrs['path'] === paths.written;
        assert.equal(write.correlation.confidence, exact ? 0.9 : 0.8, JSON.stringify(near));
      });

      it('seals the denied call as denied: nothing of it ran, no stolen.txt', function () {
        const denied = calls[2]!;
        assert.equal(denied.status, 'denied', JSON.stringify(denied));
        assert.equal(denied.decision?.answered, 'deny');
        assert.match(denied.input.text ?? '', /etc\/shadow/);
        assert.equal(existsSync(paths.stolen), false);
        assert.deepEqual(
          events.filter(
            (event) => argvOf(event).includes('/etc/shadow') || event.attrs['path'] === paths.stolen,
          ),
          [],
        );
        assert.deepEqual(
          events.filter((event) => event.tool_call_id === denied.tool_call_id),
          [],
        );
      });

      it('refuses the forged hooks and binding (403 counted, nothing of them stored)', async function () {
        const forge = calls[3]!;
        // the forging call ran (it is no policy's business): its own output is what its shell saw
        const output = agentRun.toolResults.find((result) => result.output.includes('bind-http='))?.output;
        assert.ok(output !== undefined, JSON.stringify(agentRun.toolResults));
        // both forged hooks answered 403 by the daemon (the client prints the error on stderr)
        assert.equal(output.match(/hook refused \(tool_call\)/g)?.length, 2, output);
        // no token in the agent's environment (provd watch drops it); the socket serves hooks alone
        assert.match(output, /bind-http=401 bind-socket=404/, output);
        // with the token, over HTTP: the kernel marked the tool call's connection, the daemon refused both
        assert.match(output, /bind-token=403 hook-token=403/, output);
        // and the exec in place (below); the two writes over HTTP in watched_callers
        assert.deepEqual(
          (await refusedCounts()).map((n, i) => n - refusedBefore[i]!),
          [3, 0, 2],
        );
        assert.ok(!calls.some((call) => call.tool_call_id === 'forged_call_1'));
        assert.notEqual(forge.status, 'denied', JSON.stringify(forge));
        const forged = await request(shared.daemon.url, `/v1/timeline?run=forged-session&view=session`, {
          headers: auth,
        });
        assert.equal(
          JSON.stringify(forged.body).includes('forged_call_1'),
          false,
          JSON.stringify(forged.body),
        );
        const runs = await request(shared.daemon.url, '/v1/runs?limit=1000', { headers: auth });
        const known = (runs.body['runs'] as { run_id: string }[]).map((entry) => entry.run_id);
        assert.ok(!known.includes('forged-session') && !known.includes('forged-run'), known.join(' '));
      });

      it("refuses the tool call's own shell exec'ing the hook's command line in place (by its exec events), nothing of it stored", async function () {
        const output = agentRun.toolResults.find((result) => result.output.includes('exec-forgery'))?.output;
        assert.ok(output !== undefined, JSON.stringify(agentRun.toolResults));
        // the forged PreToolUse: refused by the daemon, so the client answered its deny
        assert.equal(output.match(/hook refused \(tool_call\)/g)?.length, 1, output);
        // (Gemini CLI hands the output back as a JSON string: its quotes escaped)
        assert.match(output, /\\?"(permissionDecision|decision)\\?":\\?"deny/, output);
        // /proc places Claude's and Codex's as a hook; the sensor's exec of the tool's shell refuses them.
        // Gemini's exec replaces only its command's subshell, which /proc sees under the tool's shell.
        assert.match(
          output,
          agent === 'gemini'
            ? /stands between the hook client and agent/
            : // the tool's shell line is often past the 512 bytes kept: refused as truncated then
              /exec'd .* since its fork(, truncated \(| \(the sensor's exec event\))/,
          output,
        );
        assert.ok(!calls.some((call) => call.tool_call_id === 'forged_call_2'));
        const forged = await request(shared.daemon.url, `/v1/timeline?run=${run}&view=session`, {
          headers: auth,
        });
        assert.equal(JSON.stringify(forged.body).includes('"tool_call_id":"forged_call_2"'), false);
        // every genuine hook of the watched agent was checked against its exec events, and none was refused
        const checks = (await execCounts()).map((n, i) => n - execBefore[i]!);
        assert.deepEqual(checks.slice(1), [agent === 'gemini' ? 0 : 1, 0], JSON.stringify(checks));
        assert.ok(checks[0]! >= sessionEvents[agent].length + 5, JSON.stringify(checks));
      });

      it('explains the shell call: its decision, input and the events tied to it', async function () {
        const id = calls[0]!.tool_call_id;
        const explained = await runCli(['explain', '--tool-call', id, '--run', run], {
          env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token },
        });
        assert.equal(explained.code, 0, explained.stderr);
        assert.match(explained.stdout, new RegExp(`^tool call ${id} \\(completed\\)`), explained.stdout);
        assert.match(explained.stdout, /answered allow/, explained.stdout);
        assert.match(explained.stdout, /execve \(hook_exec_match, confidence 0\.95, kernel_correlated\)/);
      });

      it('leaves the run verifying ok', async function () {
        const verify = await runCli(['verify', run], {
          env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token },
        });
        assert.equal(verify.code, 0, verify.stdout + verify.stderr);
        assert.match(verify.stdout, new RegExp(`verify ${run}: ok`));
      });
    });
  }

  /**
   * Health's counts of hooks refused as sent from inside a tool call and from no agent's tree, and of
   * watched processes' writes refused over HTTP.
   */
  async function refusedCounts(): Promise<number[]> {
    const { body } = await request(shared.daemon.url, '/v1/health', { headers: auth });
    const hooks = (body['checks'] as Record<string, Record<string, number>>)['hooks'];
    const watched = (body['checks'] as Record<string, Record<string, number>>)['watched_callers'];
    assert.ok(hooks && watched, JSON.stringify(body));
    return [hooks['refused_tool_call']!, hooks['refused_unbound']!, watched['refused_writes']!];
  }

  /** Health's counts of hook verdicts the sensor's exec events confirmed, refused, and could not check. */
  async function execCounts(): Promise<number[]> {
    const { body } = await request(shared.daemon.url, '/v1/health', { headers: auth });
    const hooks = (body['checks'] as Record<string, Record<string, number>>)['hooks']!;
    return [hooks['exec_confirmed']!, hooks['exec_refused']!, hooks['exec_unchecked']!];
  }
});
