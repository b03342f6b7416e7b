/**
 * The body of POST /v1/record (docs/contract.md "Writes") as one TS type: typia makes it the
 * OpenAPI `RecordRequest` schema and the structural check; parseRecordRequest adds what a schema
 * cannot state and fills the defaults.
 */
import { isAbsolute } from 'node:path';
import typia, { type tags } from 'typia';
import { randomId } from '../../shared/random-id.js';
import { SchemaContract, type FieldFailure } from '../../shared/schema/schema-contract.js';
import type { CleanText, Identifier, IntegerIn } from '../../shared/schema/wire-types.js';
import { isWellFormedText } from '../../shared/well-formed.js';

/** An argv element: any text but NUL (exec cannot pass one), at most 128 KiB (Linux MAX_ARG_STRLEN). */
export type ArgText = string & tags.MaxLength<131072> & tags.Pattern<'^[^\\u0000]*$'>;

/** A token count a harness asserts: a JSON-safe integer. */
type TokenCount = IntegerIn<0, 9007199254740991>;

/**
 * LLM token usage a harness asserts for a tool call (the model requests it made for it, or, with
 * execute:false, the request the tool call stands for): the cost signals count it apart from the
 * usage provd reads in TLS bodies.
 */
export interface AssertedLlmUsage {
  /** The model as the provider named it in its answer (`gpt-4.1-2025-04-14`, `claude-sonnet-4-5-20250929`). */
  model: CleanText<1, 256>;
  /** Requests this usage sums; 1 when absent. */
  requests?: IntegerIn<1, 1000000000> | null;
  /** Prompt tokens, cached and cache-written ones included. */
  input_tokens: TokenCount;
  output_tokens: TokenCount;
  /** Of input_tokens, those read from the prompt cache; 0 when absent. */
  cached_input_tokens?: TokenCount | null;
  /** Of input_tokens, those written to the prompt cache; 0 when absent. */
  cache_write_tokens?: TokenCount | null;
}

/** An asserted usage as the record keeps it: every count given. */
export type RecordedLlmUsage = { [key in keyof AssertedLlmUsage]-?: NonNullable<AssertedLlmUsage[key]> };

/** A command to run and record, or (execute:false) a tool call to assert. */
export interface RecordRequest {
  /** The run the tool call belongs to; a new `run_…` id when absent. */
  run_id?: Identifier | null;
  /** The tool call's id, unique in its run; a new `tc_…` id when absent. */
  tool_call_id?: Identifier | null;
  /** The program: a path, or a name looked up in the recorded command's PATH. Never shell text. */
  command: ArgText & tags.MinLength<1>;
  /** Its arguments, passed as they are (no shell). */
  args?: (ArgText[] & tags.MaxItems<4096>) | null;
  /** Absolute working directory; file effects are recorded under it. The daemon's own when absent. */
  cwd?: (ArgText & tags.MinLength<1>) | null;
  /** The whole tree is killed after this long; 600000 (10 minutes) when absent. */
  timeout_ms?: IntegerIn<1, 86400000> | null;
  /** False: store the tool call as `asserted` and run nothing. */
  execute?: boolean | null;
  /** LLM token usage the caller asserts for this tool call, by model. */
  llm_usage?: (AssertedLlmUsage[] & tags.MaxItems<64>) | null;
}

/** RecordRequest's schema and validator: unknown fields are refused. */
export const recordRequest = new SchemaContract<RecordRequest>(
  typia.json.schema<RecordRequest, '3.1'>(),
  typia.createValidateEquals<RecordRequest>(),
  'record body',
);

/** A checked record request with its defaults. */
export interface RecordPlan {
  runId: string;
  toolCallId: string;
  command: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  execute: boolean;
  llmUsage: RecordedLlmUsage[];
}

export const defaultRecordTimeoutMs = 600_000;

/** Validates a record body and fills its defaults, or names the first field that is wrong. */
export function parseRecordRequest(body: unknown, defaultCwd: string): RecordPlan | FieldFailure {
  const checked = recordRequest.check(body);
  if (!checked.ok) return checked.failure;
  const request = checked.value;
  const texts: [string, string | null | undefined][] = [
    ['run_id', request.run_id],
    ['tool_call_id', request.tool_call_id],
    ['command', request.command],
    ['cwd', request.cwd],
    ...(request.args ?? []).map((arg, index): [string, string] => [`args[${index}]`, arg]),
    ...(request.llm_usage ?? []).map((usage, index): [string, string] => [
      `llm_usage[${index}].model`,
      usage.model,
    ]),
  ];
  for (const [field, text] of texts) {
    if (typeof text === 'string' && !isWellFormedText(text))
      return { field, message: `${field} must not hold unpaired surrogates` };
  }
  const llmUsage = (request.llm_usage ?? []).map((usage) => ({
    model: usage.model,
    requests: usage.requests ?? 1,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cached_input_tokens: usage.cached_input_tokens ?? 0,
    cache_write_tokens: usage.cache_write_tokens ?? 0,
  }));
  const overfull = llmUsage.findIndex(
    (usage) => usage.cached_input_tokens + usage.cache_write_tokens > usage.input_tokens,
  );
  if (overfull !== -1)
    return {
      field: `llm_usage[${overfull}]`,
      message: `llm_usage[${overfull}]: cached_input_tokens and cache_write_tokens are part of input_tokens, so cannot sum to more`,
    };
  const cwd = request.cwd ?? defaultCwd;
  if (!isAbsolute(cwd)) return { field: 'cwd', message: 'cwd must be an absolute path' };
  return {
    runId: request.run_id ?? randomId('run_'),
    toolCallId: request.tool_call_id ?? randomId('tc_'),
    command: request.command,
    args: request.args ?? [],
    cwd,
    timeoutMs: request.timeout_ms ?? defaultRecordTimeoutMs,
    execute: request.execute ?? true,
    llmUsage,
  };
}

/** True when parseRecordRequest refused the body. */
export function isRecordRefusal(result: RecordPlan | FieldFailure): result is FieldFailure {
  return 'field' in result;
}
