/** Gemini's streamGenerateContent over SSE, as Gemini CLI speaks it (and generateContent for its side requests). */
import type { ServerResponse } from 'node:http';
import { asArray, asRecord, sseEvent, startSse, type ModelProtocol } from './protocol.js';
import type { ToolResult } from './script.js';

const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 };

function candidateOf(parts: readonly Record<string, unknown>[]): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
  };
}

function answer(res: ServerResponse, parts: readonly Record<string, unknown>[], url: string): void {
  if (!url.includes(':streamGenerateContent')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(candidateOf(parts)));
    return;
  }
  startSse(res);
  sseEvent(res, candidateOf(parts));
  res.end();
}

export const geminiProtocol: ModelProtocol = {
  handles: (method, url) =>
    method === 'POST' && /^\/v1(beta)?\/models\/[^/:]+:(streamGenerateContent|generateContent)\b/.test(url),
  isTurnRequest: (_method, url, body) =>
    url.includes(':streamGenerateContent') && asArray(asRecord(body).tools).length > 0,
  sendCalls(res, calls, url) {
    answer(
      res,
      calls.map((call) => ({ functionCall: { id: call.id, name: call.name, args: call.input } })),
      url,
    );
  },
  sendText(res, text, url) {
    answer(res, [{ text }], url);
  },
  toolResults(body): ToolResult[] {
    return asArray(asRecord(body).contents).flatMap((content) =>
      asArray(asRecord(content).parts)
        .map((part) => asRecord(asRecord(part).functionResponse))
        .filter((response) => typeof response.name === 'string')
        .map((response) => ({
          id: typeof response.id === 'string' ? response.id : String(response.name),
          output: JSON.stringify(response.response ?? null),
          isError: undefined,
        })),
    );
  },
};
