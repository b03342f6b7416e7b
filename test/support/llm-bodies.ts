/** LLM response bodies in the shapes the providers document and send (ids and texts shortened). */

export const openAiChat = JSON.stringify({
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

export const openAiChatStream = [
  'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":null}',
  '',
  'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":2,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":4}}}',
  '',
  'data: [DONE]',
  '',
].join('\n');

export const openAiResponses = JSON.stringify({
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

export const openAiResponsesStream = [
  'event: response.created',
  'data: {"type":"response.created","response":{"id":"resp_1","model":"o4-mini","usage":null}}',
  '',
  'event: response.completed',
  'data: {"type":"response.completed","response":{"id":"resp_1","model":"o4-mini","usage":{"input_tokens":50,"input_tokens_details":{"cached_tokens":0},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":256},"total_tokens":350}}}',
  '',
].join('\n');

export const anthropic = JSON.stringify({
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

export const anthropicStream = [
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
