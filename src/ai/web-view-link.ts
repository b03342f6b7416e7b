/**
 * The link a tool answer carries to the web view's page of what it shows (docs/web.md): the page of
 * the run it named or answered about, `/ui#run=ID`. The gate's verdict is about no stored run and
 * has no page; a failure links nothing.
 */
import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutcome } from './tool-outcome.js';

/** A `resource_link` to the run's page under `webView` (`http://HOST:PORT/ui`), or undefined. */
export function webViewLink(webView: string, input: unknown, outcome: ToolOutcome): ResourceLink | undefined {
  if (!outcome.ok) return undefined;
  // reads name it `run`, the writes `run_id`; record_tool_call may leave it out and be told it
  const run = textField(input, 'run') ?? textField(input, 'run_id') ?? textField(outcome.body, 'run_id');
  if (run === undefined) return undefined;
  return {
    type: 'resource_link',
    uri: `${webView}#${new URLSearchParams({ run }).toString()}`,
    name: `run ${run}`,
    title: `provd web view: run ${run}`,
    description: "The run's page: its verify verdict, risks, agent session, timeline and causality",
    mimeType: 'text/html',
  };
}

function textField(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' && field !== '' ? field : undefined;
}
