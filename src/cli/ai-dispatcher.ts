import { ToolDispatcher } from '../ai/tool-dispatcher.js';
import { sendDaemon } from './daemon-client.js';

/** What a tool may take: verify and signals of a large run read a lot. */
const toolTimeoutMs = 120_000;

/** The dispatcher of `provd ai call` and `provd ai mcp`: tools sent to the daemon at `baseUrl`. */
export function daemonDispatcher(baseUrl: string): ToolDispatcher {
  return new ToolDispatcher((request) => sendDaemon(baseUrl, request, toolTimeoutMs));
}
