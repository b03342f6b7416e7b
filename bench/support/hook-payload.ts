/** The Claude Code PreToolUse the hook benches send: a Bash call, its id `${idPrefix}${i}`. */
export function preToolUsePayload(i: number, idPrefix: string): string {
  return JSON.stringify(preToolUse(i, idPrefix));
}

/** The PostToolUse that ends preToolUsePayload's call `i`: its result and duration. */
export function postToolUsePayload(i: number, idPrefix: string): string {
  return JSON.stringify({
    ...preToolUse(i, idPrefix),
    hook_event_name: 'PostToolUse',
    tool_response: { stdout: `file-${i % 100}.ts\n`, stderr: '', interrupted: false, isImage: false },
    duration_ms: 12,
  });
}

function preToolUse(i: number, idPrefix: string): Record<string, unknown> {
  return {
    session_id: 'bench-session',
    transcript_path: '/tmp/bench/transcript.jsonl',
    cwd: '/work/proj',
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: `ls -la /work/proj/src/file-${i % 100}.ts && git status --porcelain` },
    tool_use_id: `${idPrefix}${i}`,
  };
}
