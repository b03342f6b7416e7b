/** OpenAI Responses over SSE, as Codex speaks it (POST /v1/responses, streamed). */
import type { ServerResponse } from 'node:http';
import { asArray, asRecord, contentText, sseEvent, startSse, type ModelProtocol } from './protocol.js';
import type { AgentCall, ToolResult } from './script.js';

const usage = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 10,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 20,
};

function answer(res: ServerResponse, items: readonly Record<string, unknown>[]): void {
  startSse(res);
  const id = `resp_${Date.now().toString(36)}`;
  sseEvent(res, { type: 'response.created', response: { id } }, 'response.created');
  items.forEach((item, output_index) => {
    sseEvent(res, { type: 'response.output_item.added', output_index, item }, 'response.output_item.added');
    sseEvent(res, { type: 'response.output_item.done', output_index, item }, 'response.output_item.done');
  });
  sseEvent(res, { type: 'response.completed', response: { id, usage } }, 'response.completed');
  res.end();
}

/** apply_patch is a custom (free-form) tool in Codex: its input is the patch text itself. */
function item(call: AgentCall): Record<string, unknown> {
  if (call.name === 'apply_patch' && typeof call.input.patch === 'string') {
    return {
      type: 'custom_tool_call',
      id: `ctc_${call.id}`,
      call_id: call.id,
      name: 'apply_patch',
      input: call.input.patch,
      status: 'completed',
    };
  }
  return {
    type: 'function_call',
    id: `fc_${call.id}`,
    call_id: call.id,
    name: call.name,
    arguments: JSON.stringify(call.input),
    status: 'completed',
  };
}

export const openaiProtocol: ModelProtocol = {
  handles: (method, url) => method === 'POST' && url.startsWith('/v1/responses'),
  isTurnRequest: (_method, _url, body) => asArray(asRecord(body).tools).length > 0,
  sendCalls(res, calls) {
    answer(res, calls.map(item));
  },
  sendText(res, text) {
    answer(res, [
      {
        type: 'message',
        id: 'msg_final',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ]);
  },
  toolResults(body): ToolResult[] {
    return asArray(asRecord(body).input)
      .map(asRecord)
      .filter((entry) => entry.type === 'function_call_output' || entry.type === 'custom_tool_call_output')
      .map((entry) => ({ id: String(entry.call_id), output: contentText(entry.output), isError: undefined }));
  },
};
