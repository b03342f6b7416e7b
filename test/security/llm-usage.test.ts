import assert from 'node:assert/strict';
import { readLlmUsage } from '../../src/security/signals/llm-usage.js';

// bodies in the shapes the providers document and send (ids and texts shortened)
const openAiChat = JSON.stringify({
  id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
  usage: {
    prompt_tokens: 19,
    completion_tokens: 10,
    total_tokens: 29,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  },
});

const openAiChatStream = [
  'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":null}',
  '',
  'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":2,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":4}}}',
  '',
  'data: [DONE]',
  '',
].join('\n');

const openAiResponses = JSON.stringify({
  id: 'resp_67ccd2bed1ec8190',
  object: 'response',
  model: 'gpt-4.1-2025-04-14',
  output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi' }] }],
  usage: {
    input_tokens: 36,
    input_tokens_details: { cached_tokens: 12 },
    output_tokens: 87,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 123,
  },
});

const openAiResponsesStream = [
  'event: response.created',
  'data: {"type":"response.created","response":{"id":"resp_1","model":"o4-mini","usage":null}}',
  '',
  'event: response.completed',
  'data: {"type":"response.completed","response":{"id":"resp_1","model":"o4-mini","usage":{"input_tokens":50,"input_tokens_details":{"cached_tokens":0},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":256},"total_tokens":350}}}',
  '',
].join('\n');

const anthropic = JSON.stringify({
  id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'Hi!' }],
  stop_reason: 'end_turn',
  usage: {
    input_tokens: 12,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 2000,
    output_tokens: 34,
  },
});

const anthropicStream = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[],"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
].join('\n');

describe('LLM token usage from response bodies (cost signals)', function () {
  it('reads the usage of each provider format, whole and streamed', function () {
    const read = (body: string): unknown => {
      const usage = readLlmUsage(body);
      return usage === null
        ? null
        : [
            usage.format,
            usage.model,
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_input_tokens,
            usage.cache_write_tokens,
            usage.complete,
          ];
    };
    assert.deepEqual(read(openAiChat), ['openai_chat', 'gpt-4.1-2025-04-14', 19, 10, 0, 0, true]);
    assert.deepEqual(read(openAiChatStream), ['openai_chat', 'gpt-4o-mini', 8, 2, 4, 0, true]);
    assert.deepEqual(read(openAiResponses), ['openai_responses', 'gpt-4.1-2025-04-14', 36, 87, 12, 0, true]);
    assert.deepEqual(read(openAiResponsesStream), ['openai_responses', 'o4-mini', 50, 300, 0, 0, true]);
    // Anthropic counts cache reads and writes beside input_tokens: the prompt is all three
    assert.deepEqual(read(anthropic), ['anthropic', 'claude-sonnet-4-5-20250929', 2112, 34, 2000, 100, true]);
    assert.deepEqual(read(anthropicStream), ['anthropic', 'claude-haiku-4-5', 25, 15, 0, 0, true]);
    // the test server's body in the TLS tests (test/fixtures/sensor/https_server.py)
    assert.deepEqual(read('{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":34}}'), [
      'openai_responses',
      null,
      12,
      34,
      0,
      0,
      true,
    ]);
  });

  it('says a stream cut before its end is incomplete, and a kept-cut body too', function () {
    const cut = anthropicStream.slice(0, anthropicStream.indexOf('event: message_delta'));
    assert.deepEqual(
      [readLlmUsage(cut)?.output_tokens, readLlmUsage(cut)?.complete],
      [1, false],
      'only message_start arrived: its output count is a floor',
    );
    assert.equal(readLlmUsage(openAiChatStream, true)?.complete, false);
    assert.equal(readLlmUsage(openAiChat, true)?.complete, false);
  });

  it('finds nothing in what holds no usage, and is not fooled by hostile values', function () {
    for (const body of [
      '',
      'not json',
      '[1,2]',
      '{"usage": null}',
      '{"usage": {"tokens": 5}}',
      'data: {"choices":[]}\n\n',
      '{"usage": {',
    ]) {
      assert.equal(readLlmUsage(body), null, body);
    }
    const hostile = readLlmUsage(
      '{"usage":{"prompt_tokens":7,"completion_tokens":1e300,"prompt_tokens_details":{"cached_tokens":"9"}}}',
    );
    assert.deepEqual(
      [hostile?.input_tokens, hostile?.output_tokens, hostile?.cached_input_tokens],
      [7, 0, 0],
    );
    const negative = readLlmUsage('{"usage":{"input_tokens":-5,"output_tokens":3}}');
    assert.deepEqual([negative?.input_tokens, negative?.output_tokens], [0, 3]);
    assert.equal(readLlmUsage('{"usage":{"prompt_tokens":-5,"completion_tokens":"10"}}'), null);
  });
});
