/**
 * Every captured hook payload of the three agents (test/fixtures/agents/hook-payloads.jsonl, from
 * real Claude Code, Codex and Gemini CLI runs) read into provd's model, and each PreToolUse
 * answered in its agent's own shape.
 */
import assert from 'node:assert/strict';
import { agentHarnesses } from '../../src/agents/agents.js';
import { isRefusal, type AgentHarness, type HookEvent } from '../../src/agents/hook-event.js';
import { judgePreToolUse } from '../../src/agents/hook-judge.js';
import { defaultPolicy } from '../../src/security/policy/default-policy.js';
import { PolicyEngine } from '../../src/security/policy/policy-engine.js';
import { capturedPayloads } from '../support/agents/captured-payloads.js';

const captured = capturedPayloads();

const harness = (agent: string): AgentHarness =>
  agentHarnesses.find((one) => one.name === agent.replace(/-.*/, ''))!;

function read(agent: string, payload: Record<string, unknown>): HookEvent {
  const event = harness(agent).read(payload);
  if (isRefusal(event)) assert.fail(`${agent}: ${event.field}: ${event.message}`);
  return event;
}

const expectedKinds: Record<string, string> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'user_prompt',
  BeforeAgent: 'user_prompt',
  PreToolUse: 'pre_tool_use',
  BeforeTool: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  AfterTool: 'post_tool_use',
  Stop: 'stop',
  AfterAgent: 'stop',
  SessionEnd: 'session_end',
};

describe('agent hooks', function () {
  describe('payloads read into one model', function () {
    it('reads every captured payload with its session, cwd, kind and tool fields', function () {
      assert.ok(captured.length >= 30);
      for (const { agent, event: name, payload } of captured) {
        const event = read(agent, payload);
        const at = `${agent} ${name}`;
        assert.equal(event.kind, expectedKinds[name] ?? 'other', at);
        assert.equal(event.native_event, name, at);
        assert.equal(event.session_id, payload['session_id'], at);
        assert.equal(event.cwd, payload['cwd'], at);
        assert.deepEqual(event.payload, payload, `${at}: the payload is kept whole`);
        if (event.kind === 'pre_tool_use' || event.kind === 'post_tool_use') {
          assert.equal(event.tool_name, payload['tool_name'], at);
          assert.deepEqual(event.tool_input, payload['tool_input'], at);
          if (agent === 'gemini') {
            assert.equal(event.tool_use_id, null, at);
            assert.match(event.tool_call_key!, /^g_[0-9a-f]{24}$/, at);
          } else {
            assert.equal(event.tool_use_id, payload['tool_use_id'], at);
            assert.equal(event.tool_call_key, null, at);
          }
        }
        if (event.kind === 'post_tool_use')
          assert.deepEqual(event.tool_response, payload['tool_response'], at);
        if (name === 'UserPromptSubmit' || name === 'BeforeAgent')
          assert.equal(event.prompt, payload['prompt'], at);
        if (name === 'Stop') assert.equal(event.assistant_message, payload['last_assistant_message'], at);
        if (name === 'AfterAgent') assert.equal(event.assistant_message, payload['prompt_response'], at);
      }
    });

    it("reads Claude's duration_ms, and PostToolBatch and Gemini's model events as other, adding nothing", function () {
      const post = captured.find((one) => one.agent === 'claude' && one.event === 'PostToolUse')!;
      assert.equal(read('claude', post.payload).duration_ms, post.payload['duration_ms']);
      for (const { agent, event: name, payload } of captured.filter(
        ({ event }) => !(event in expectedKinds),
      )) {
        const event = read(agent, payload);
        assert.equal(event.kind, 'other', name);
        assert.deepEqual(
          [event.tool_name, event.tool_use_id, event.prompt, event.assistant_message],
          [null, null, null, null],
          name,
        );
      }
    });

    it("keys Gemini's BeforeTool and AfterTool of one call alike, and different calls apart", function () {
      const gemini = captured
        .filter(({ agent }) => agent === 'gemini')
        .map(({ payload }) => read('gemini', payload));
      const before = gemini
        .filter((event) => event.kind === 'pre_tool_use')
        .map((event) => event.tool_call_key);
      const after = gemini
        .filter((event) => event.kind === 'post_tool_use')
        .map((event) => event.tool_call_key);
      assert.equal(before.length, 3);
      assert.deepEqual(after, before);
      assert.equal(new Set(before).size, 3);
    });

    it('refuses a payload that is not the agent’s, naming the field', function () {
      const pre = captured.find((one) => one.agent === 'claude' && one.event === 'PreToolUse')!.payload;
      const cases: [string, Record<string, unknown>, string][] = [
        ['claude', { ...pre, session_id: undefined }, 'session_id'],
        ['claude', { ...pre, session_id: 7 }, 'session_id'],
        ['claude', { ...pre, tool_use_id: undefined }, 'tool_use_id'],
        ['claude', { ...pre, tool_input: 'rm -rf /' }, 'tool_input'],
        ['claude', { ...pre, hook_event_name: 'Pre\u0000ToolUse' }, 'hook_event_name'],
        ['codex', { ...pre, tool_name: '' }, 'tool_name'],
        ['gemini', { ...pre, hook_event_name: 'BeforeTool', tool_input: [1] }, 'tool_input'],
        [
          'claude',
          { ...pre, hook_event_name: 'UserPromptSubmit', prompt: 'x'.repeat(1024 * 1024 + 1) },
          'prompt',
        ],
      ];
      for (const [agent, payload, field] of cases) {
        const refused = harness(agent).read(JSON.parse(JSON.stringify(payload)) as Record<string, unknown>);
        assert.ok(isRefusal(refused), `${agent} ${field}`);
        assert.equal(refused.field, field);
      }
    });
  });

  describe('PreToolUse answered in the agent’s own protocol', function () {
    const policy = new PolicyEngine(defaultPolicy);
    const pres = captured.filter(({ event }) => event === 'PreToolUse' || event === 'BeforeTool');

    it('allows every captured tool call of the default policy with {}', function () {
      for (const { agent, payload } of pres) {
        const event = read(agent, payload);
        const decided = judgePreToolUse(policy, event);
        assert.equal(decided.answered, 'allow', `${agent} ${String(payload['tool_name'])}`);
        assert.deepEqual(harness(agent).answer(event, { verdict: 'allow', reason: decided.reason }), {});
      }
    });

    it("denies `cat /etc/shadow > stolen.txt` as each agent's shell tool, in its deny shape", function () {
      const shell: Record<string, [string, Record<string, unknown>]> = {
        claude: ['Bash', { command: 'cat /etc/shadow > stolen.txt' }],
        codex: ['Bash', { command: 'cat /etc/shadow > stolen.txt' }],
        gemini: ['run_shell_command', { command: 'cat /etc/shadow > stolen.txt' }],
      };
      for (const { name } of agentHarnesses) {
        const sample = pres.find(({ agent }) => agent === name)!.payload;
        const [toolName, toolInput] = shell[name]!;
        const event = read(name, { ...sample, tool_name: toolName, tool_input: toolInput });
        const decided = judgePreToolUse(policy, event);
        assert.notEqual(decided.decision, 'allow', name);
        assert.equal(decided.answered, 'deny', name);
        const answer = harness(name).answer(event, { verdict: 'deny', reason: decided.reason });
        const expected =
          name === 'gemini'
            ? { decision: 'deny', reason: decided.reason }
            : {
                hookSpecificOutput: {
                  hookEventName: 'PreToolUse',
                  permissionDecision: 'deny',
                  permissionDecisionReason: decided.reason,
                },
              };
        assert.deepEqual(answer, expected, name);
      }
    });

    it('asks only where the agent can (Claude); Codex and Gemini deny, saying approval is needed', function () {
      for (const { name } of agentHarnesses) {
        const sample = pres.find(({ agent }) => agent === name)!.payload;
        const event = read(name, sample);
        const answer = JSON.stringify(harness(name).answer(event, { verdict: 'ask', reason: 'r' }));
        if (name === 'claude') assert.match(answer, /"permissionDecision":"ask"/);
        else assert.match(answer, /deny.*needs approval/);
      }
    });

    it('answers {} to every event that is not a PreToolUse, whatever the verdict', function () {
      for (const { agent, event: name, payload } of captured.filter(
        ({ event }) => !/^(PreToolUse|BeforeTool)$/.test(event),
      )) {
        const event = read(agent, payload);
        assert.deepEqual(harness(agent).answer(event, { verdict: 'deny', reason: 'x' }), {}, name);
      }
    });

    it('keeps a detect-only rule as an advisory and allows', function () {
      const detect = new PolicyEngine({
        source: 'test',
        rules: [
          {
            id: 'watch_curl',
            description: '',
            decision: 'deny',
            severity: 'low',
            mode: 'detect',
            reason: 'curl watched',
            match: [{ event_types: ['execve'], commands: ['curl'] }],
          },
        ],
      });
      const sample = pres.find(({ agent }) => agent === 'claude')!.payload;
      const decided = judgePreToolUse(
        detect,
        read('claude', { ...sample, tool_input: { command: 'curl example.com' } }),
      );
      assert.equal(decided.answered, 'allow');
      assert.equal(decided.advisory?.rule_id, 'watch_curl');
    });
  });
});
