/**
 * Maps an agent-neutral scripted call to each agent's own tool and input: Claude Code's
 * Bash/Write/Edit/Read, Codex's exec_command/apply_patch (it has no read tool: `cat`), Gemini CLI's
 * run_shell_command/write_file/replace/read_file.
 */
import type { AgentCall, AgentName, ScriptedCall } from './script.js';

export function toAgentCall(agent: AgentName, call: ScriptedCall): AgentCall {
  const { id } = call;
  switch (call.kind) {
    case 'raw':
      return { id, name: call.name, input: call.input };
    case 'shell':
      if (agent === 'claude') return { id, name: 'Bash', input: { command: call.command } };
      if (agent === 'codex') return { id, name: 'exec_command', input: { cmd: call.command } };
      return { id, name: 'run_shell_command', input: { command: call.command } };
    case 'write':
      if (agent === 'claude')
        return { id, name: 'Write', input: { file_path: call.path, content: call.content } };
      if (agent === 'codex')
        return { id, name: 'apply_patch', input: { patch: addFilePatch(call.path, call.content) } };
      return { id, name: 'write_file', input: { file_path: call.path, content: call.content } };
    case 'edit': {
      const strings = { file_path: call.path, old_string: call.oldText, new_string: call.newText };
      if (agent === 'claude') return { id, name: 'Edit', input: strings };
      if (agent === 'codex')
        return {
          id,
          name: 'apply_patch',
          input: { patch: updatePatch(call.path, call.oldText, call.newText) },
        };
      return { id, name: 'replace', input: { ...strings, instruction: `replace ${call.oldText}` } };
    }
    case 'read':
      if (agent === 'claude') return { id, name: 'Read', input: { file_path: call.path } };
      if (agent === 'codex')
        return { id, name: 'exec_command', input: { cmd: `cat ${shellQuote(call.path)}` } };
      return { id, name: 'read_file', input: { file_path: call.path } };
  }
}

/** Codex's patch adding a file (apply_patch's own format: every line of the file prefixed with +). */
function addFilePatch(path: string, content: string): string {
  const lines = content.replace(/\n$/, '').split('\n');
  return [
    '*** Begin Patch',
    `*** Add File: ${path}`,
    ...lines.map((line) => `+${line}`),
    '*** End Patch',
  ].join('\n');
}

/** Codex's patch replacing the lines `oldText` with `newText` (whole lines, as apply_patch matches). */
function updatePatch(path: string, oldText: string, newText: string): string {
  const minus = oldText
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `-${line}`);
  const plus = newText
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `+${line}`);
  return ['*** Begin Patch', `*** Update File: ${path}`, '@@', ...minus, ...plus, '*** End Patch'].join('\n');
}

export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
