/** What a scripted model server needs to know of one model protocol. */
import type { ServerResponse } from 'node:http';
import type { AgentCall, ToolResult } from './script.js';

export interface ModelProtocol {
  /** Whether a request is the agent's turn of the conversation (else a side request: answered with text, no turn taken). */
  isTurnRequest(method: string, url: string, body: unknown): boolean;
  /** Whether the request is one this protocol answers at all (anything else: 404). */
  handles(method: string, url: string): boolean;
  /** Answers with tool calls (as SSE). */
  sendCalls(res: ServerResponse, calls: readonly AgentCall[], url: string): void;
  /** Answers with a final text (as SSE, or plain JSON for a non-streaming request). */
  sendText(res: ServerResponse, text: string, url: string): void;
  /** The tool results a request carries (every one in its history). */
  toolResults(body: unknown): ToolResult[];
}

/** Starts an SSE answer. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** One SSE event, named when `event` is given. */
export function sseEvent(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`);
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A result's content as text: a string, or the text parts of an array of blocks, or its JSON. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof asRecord(part).text === 'string' ? String(asRecord(part).text) : JSON.stringify(part),
      )
      .join('');
  }
  return JSON.stringify(content ?? null);
}
