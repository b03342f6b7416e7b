/**
 * The subjects of each agent's tool calls, read from the PreToolUse (Gemini: BeforeTool) payloads
 * the three agent CLIs really sent (test/fixtures/agents/hook-payloads.jsonl, copied byte for byte
 * from shared/data/agents), and from the inputs of their other tools.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPolicy } from '../../src/security/policy/default-policy.js';
import { judgeToolCall } from '../../src/security/policy/judge-tool-call.js';
import { decideSubjects } from '../../src/security/policy/most-severe.js';
import { PolicyEngine } from '../../src/security/policy/policy-engine.js';
import { toolCallSubjects } from '../../src/security/policy/tool-subjects.js';
import { packageRoot } from '../../src/shared/package-root.js';

interface HookPayload {
  agent: string;
  event: string;
  payload: { tool_name?: string; tool_input?: unknown; cwd: string };
}

const payloads = readFileSync(join(packageRoot, 'test', 'fixtures', 'agents', 'hook-payloads.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line.replaceAll('<dir>', '/tmp/d')) as HookPayload) // paths as captured, shortened
  .filter(
    ({ event, payload }) =>
      (event === 'PreToolUse' || event === 'BeforeTool') && payload.tool_name !== undefined,
  );
const engine = new PolicyEngine(defaultPolicy);

function names(tool: string, input: unknown, cwd = '/w'): string[] {
  return toolCallSubjects(tool, input, cwd, '/home/agent').subjects.map((subject) => subject.names);
}

describe('tool call subjects (an agent tool call, as the gate judges it)', function () {
  it('reads every captured PreToolUse payload of each agent, and allows each of them', function () {
    const seen = payloads.map(({ agent, payload }) => {
      const reading = toolCallSubjects(payload.tool_name!, payload.tool_input, payload.cwd);
      const decided = decideSubjects(engine, reading);
      assert.equal(decided.decision, 'allow', `${agent} ${payload.tool_name}: ${decided.reason}`);
      assert.deepEqual(reading.unreadable, [], `${agent} ${payload.tool_name}`);
      return [agent, payload.tool_name, reading.subjects.map((subject) => subject.names)];
    });
    assert.deepEqual(seen, [
      [
        'claude',
        'Bash',
        [
          'runs echo',
          'writes /tmp/d/run2/proj/greeting.txt',
          'runs cat',
          'reads /tmp/d/run2/proj/greeting.txt',
        ],
      ],
      ['claude', 'Write', ['writes /tmp/d/run2/proj/notes.md']],
      ['claude', 'Edit', ['writes /tmp/d/run2/proj/notes.md']],
      [
        'codex',
        'Bash',
        [
          'runs echo',
          'writes /tmp/d/crun2/proj/greeting.txt',
          'runs cat',
          'reads /tmp/d/crun2/proj/greeting.txt',
        ],
      ],
      ['codex-apply_patch', 'apply_patch', ['writes /tmp/d/crun3/proj/notes.md']],
      [
        'gemini',
        'run_shell_command',
        [
          'runs echo',
          'writes /tmp/d/grun2/proj/greeting.txt',
          'runs cat',
          'reads /tmp/d/grun2/proj/greeting.txt',
        ],
      ],
      ['gemini', 'write_file', ['writes /tmp/d/grun2/proj/notes.md']],
      ['gemini', 'replace', ['writes /tmp/d/grun2/proj/notes.md']],
    ]);
  });

  it("kills each agent's tool call that reads /etc/shadow, in the payload's own shape", function () {
    for (const { agent, payload } of payloads) {
      const input = { ...(payload.tool_input as Record<string, unknown>) };
      for (const key of ['command', 'file_path']) {
        const value = input[key];
        if (typeof value !== 'string') continue;
        input[key] = value.startsWith('*** Begin Patch')
          ? '*** Begin Patch\n*** Delete File: /etc/shadow\n*** End Patch\n'
          : key === 'command'
            ? 'cat /etc/shadow > stolen.txt'
            : '/etc/shadow';
      }
      const decided = decideSubjects(engine, toolCallSubjects(payload.tool_name!, input, payload.cwd));
      assert.deepEqual(
        [decided.decision, decided.rule_id],
        ['kill', 'secret_path'],
        `${agent} ${payload.tool_name}: ${decided.reason}`,
      );
      assert.match(decided.reason, /(reads|writes|deletes) \/etc\/shadow: secret_path, touches a file/);
    }
  });

  it('judges a Bash tool call that copies /etc/shadow out: kill, naming what it reads', function () {
    const decided = judgeToolCall(engine, 'Bash', { command: 'cat /etc/shadow > stolen.txt' }, '/w');
    assert.deepEqual(
      [decided.decision, decided.rule_id, decided.subject, decided.reason, decided.unreadable],
      [
        'kill',
        'secret_path',
        'reads /etc/shadow',
        'reads /etc/shadow: secret_path, touches a file that holds credentials, keys or tokens',
        [],
      ],
    );
  });

  it('reads the paths of file tools, every path of a patch, and the hosts of fetch tools', function () {
    assert.deepEqual(names('Read', { file_path: '~/.ssh/id_rsa' }), ['reads /home/agent/.ssh/id_rsa']);
    assert.deepEqual(names('MultiEdit', { file_path: 'src/a.ts', edits: [] }), ['writes /w/src/a.ts']);
    assert.deepEqual(names('NotebookEdit', { notebook_path: 'n.ipynb' }), ['writes /w/n.ipynb']);
    assert.deepEqual(names('read_many_files', { paths: ['a.md', '/etc/hosts'] }), [
      'reads /w/a.md',
      'reads /etc/hosts',
    ]);
    assert.deepEqual(
      names('apply_patch', {
        command:
          '*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-x\n+y\n*** Delete File: d.txt\n*** End Patch',
      }),
      ['writes /w/a.txt', 'writes /w/b.txt', 'moves /w/c.txt', 'deletes /w/d.txt'],
    );
    assert.deepEqual(names('WebFetch', { url: 'https://docs.example.org/x', prompt: 'summarise' }), [
      'reaches docs.example.org:443',
    ]);
    assert.deepEqual(names('web_fetch', { prompt: 'read http://169.254.169.254/latest and https://a.io/' }), [
      'reaches 169.254.169.254:80',
      'reaches a.io:443',
    ]);
    // Codex's exec_command: cmd, run in its workdir
    assert.deepEqual(names('exec_command', { cmd: 'cat .env', workdir: 'sub' }), [
      'runs cat',
      'reads /w/sub/.env',
    ]);
    // Codex's shell tool: an argv
    assert.deepEqual(names('shell', { command: ['bash', '-lc', 'cat /etc/shadow'] }), [
      'runs bash',
      'runs cat',
      'reads /etc/shadow',
    ]);
  });

  it('reads an unknown tool by the paths and URLs among its string values, never throwing', function () {
    assert.deepEqual(
      names('mcp__files__read', {
        target: { file: '/etc/shadow', note: 'not a /path here' },
        list: ['http://10.0.0.2:8080/x'],
      }),
      ['reads /etc/shadow', 'reaches 10.0.0.2:8080'],
    );
    for (const input of [null, 42, 'text', [], { command: 7 }, { command: ['a', 1] }, { file_path: {} }])
      for (const tool of ['Bash', 'Write', 'apply_patch', 'mystery'])
        assert.doesNotThrow(() => toolCallSubjects(tool, input, null), `${tool} ${JSON.stringify(input)}`);
    assert.deepEqual(toolCallSubjects('Bash', { command: 7 }, null).unreadable, [
      'Bash has no command to read',
    ]);
  });
});
