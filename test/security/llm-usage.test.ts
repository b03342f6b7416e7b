import assert from 'node:assert/strict';
import { readLlmUsage } from '../../src/security/signals/llm-usage.js';
import {
  anthropic,
  anthropicStream,
  openAiChat,
  openAiChatStream,
  openAiResponses,
  openAiResponsesStream,
} from '../support/llm-bodies.js';

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
