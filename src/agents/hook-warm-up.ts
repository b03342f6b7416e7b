/**
 * The hook path run once per agent at the daemon's start, before the hook socket opens, so the
 * first real hook does not pay for compiling it: V8 compiles a function at its first call, and the
 * daemon's first PreToolUse took 38.3 ms of main thread (its caller's placing 15.1, the judge 11.9)
 * against 1.7 for the next (bench/agent-hooks --sensor), each agent's first 4-6 ms against 1.3.
 * The agent waits for that answer, so it was every daemon's slowest hook. Each harness reads a
 * canned PreToolUse (a shell command of the parts the policy reads in one: programs, options, a
 * path, a redirection, a pipe, `&&`, a host), the policy judges it and the harness answers it,
 * through the hooks route's own answerHook as an HTTP caller (placed by no one, bound to nothing);
 * the caller placing is warmed on the daemon's own ancestry in /proc, which places it as no hook,
 * and on a made-up hook's ancestry (client, hook shell, agent), which it places as a hook. Nothing
 * is stored, bound or counted.
 */
import { agentHarnesses } from './agents.js';
import { classifyAncestry, classifyHookCaller } from './hook-caller-trust.js';
import type { ProcProcess } from './proc-process.js';
import { answerHook, type HookDeps } from './hooks.route.js';

/** The canned call's shell command: each kind of word the policy judges a command by. */
const cannedCommand =
  'cd /tmp && ls -la ./src > /dev/null 2>&1; git status --porcelain | grep -v x; curl -s https://example.com/';

/** Each agent's canned PreToolUse: a shell call running cannedCommand (its own tool name and event name). */
const cannedPreToolUse: Record<string, Record<string, unknown>> = {
  claude: { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'provd-warm-up' },
  codex: { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'provd-warm-up' },
  gemini: { hook_event_name: 'BeforeTool', tool_name: 'run_shell_command' },
};

/** What the policy answered each agent's canned call (the same for the three), and the warm-up's ms. */
export interface HookWarmUp {
  answered: Record<string, string>;
  ms: number;
}

/** A hook's ancestry as /proc shows it, made up: the client, the agent's hook shell, the agent, init. */
function madeUpHook(agent: string): ProcProcess[] {
  const process = (pid: number, ppid: number, argv: string[]): ProcProcess => ({
    pid,
    ppid,
    uid: 0,
    startTicks: BigInt(pid),
    argv,
    toolCallMarkers: [],
  });
  return [
    process(4, 3, ['provd-hook', agent]),
    process(3, 2, ['/bin/sh', '-c', `provd-hook ${agent}`]),
    process(2, 1, [agent]),
    process(1, 0, ['/sbin/init']),
  ];
}

/** Runs each agent's hook path once on its canned PreToolUse (see above). */
export function warmHookPath(deps: Pick<HookDeps, 'policy' | 'trust'>): HookWarmUp {
  const started = performance.now();
  const answered: Record<string, string> = {};
  for (const harness of agentHarnesses) {
    const payload = {
      session_id: 'provd-warm-up',
      transcript_path: '/dev/null',
      cwd: '/',
      tool_input: { command: cannedCommand },
      ...cannedPreToolUse[harness.name],
    };
    const body = Buffer.from(JSON.stringify(payload));
    const result = answerHook(deps, harness, { transport: 'http' }, body, undefined);
    answered[harness.name] =
      'refused' in result ? `refused ${result.refused.status}` : (result.decision?.answered ?? 'none');
    const context = { agentName: harness.name, session: null, isBoundAgent: () => false };
    classifyHookCaller(process.pid, process.getuid?.() ?? -1, context);
    classifyAncestry({ chain: madeUpHook(harness.name) }, 0, context);
  }
  return { answered, ms: Number((performance.now() - started).toFixed(1)) };
}
