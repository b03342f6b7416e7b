/** Anthropic Messages over SSE, as Claude Code speaks it (POST /v1/messages, always streamed). */
import type { ServerResponse } from 'node:http';
import { asArray, asRecord, contentText, sseEvent, startSse, type ModelProtocol } from './protocol.js';
import type { AgentCall, ToolResult } from './script.js';

const usage = {
  input_tokens: 10,
  output_tokens: 10,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

function answer(
  res: ServerResponse,
  blocks: readonly Record<string, unknown>[],
  deltas: readonly Record<string, unknown>[],
  stopReason: string,
): void {
  startSse(res);
  const id = `msg_${Date.now().toString(36)}`;
  sseEvent(
    res,
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: 'scripted',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    },
    'message_start',
  );
  blocks.forEach((block, index) => {
    sseEvent(res, { type: 'content_block_start', index, content_block: block }, 'content_block_start');
    sseEvent(res, { type: 'content_block_delta', index, delta: deltas[index] }, 'content_block_delta');
    sseEvent(res, { type: 'content_block_stop', index }, 'content_block_stop');
  });
  sseEvent(
    res,
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage },
    'message_delta',
  );
  sseEvent(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

export const anthropicProtocol: ModelProtocol = {
  handles: (method, url) => method === 'POST' && url.startsWith('/v1/messages'),
  // Claude Code's side requests (titles, summaries) offer no tools
  isTurnRequest: (_method, url, body) =>
    !url.includes('count_tokens') && asArray(asRecord(body).tools).length > 0,
  sendCalls(res, calls: readonly AgentCall[]) {
    answer(
      res,
      calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: {} })),
      calls.map((call) => ({ type: 'input_json_delta', partial_json: JSON.stringify(call.input) })),
      'tool_use',
    );
  },
  sendText(res, text) {
    answer(res, [{ type: 'text', text: '' }], [{ type: 'text_delta', text }], 'end_turn');
  },
  toolResults(body): ToolResult[] {
    return asArray(asRecord(body).messages).flatMap((message) =>
      asArray(asRecord(message).content)
        .map(asRecord)
        .filter((block) => block.type === 'tool_result')
        .map((block) => ({
          id: String(block.tool_use_id),
          output: contentText(block.content),
          isError: block.is_error === true,
        })),
    );
  },
};
