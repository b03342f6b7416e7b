/**
 * LLM token usage read from an HTTP response body, for the cost signals: the `usage` objects of
 * OpenAI's Chat Completions and Responses APIs and of Anthropic's Messages API, whole (JSON) or
 * streamed (server-sent events, where usage comes in the last events). Pure: the caller hands it a
 * TLS event's body. A body the sensor kept cut (16 KiB) may have lost a stream's last events: its
 * usage is then `complete: false`, never guessed.
 */

export type UsageFormat = 'openai_chat' | 'openai_responses' | 'anthropic';

export interface LlmUsage {
  format: UsageFormat;
  /** The model the response names, when it names one. */
  model: string | null;
  /** Tokens of the prompt, cached ones included. */
  input_tokens: number;
  output_tokens: number;
  /** Of input_tokens, those read from the provider's prompt cache. */
  cached_input_tokens: number;
  /** Tokens written to Anthropic's prompt cache (billed apart); 0 elsewhere. */
  cache_write_tokens: number;
  /** False when the body was cut before the stream's last usage, so the counts are a floor. */
  complete: boolean;
}

type Json = Record<string, unknown>;

/** The usage a response body reports, or null when it holds none. `cut`: the body was kept cut. */
export function readLlmUsage(body: string, cut = false): LlmUsage | null {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) {
    const whole = parseObject(trimmed);
    return whole === null ? null : fromObjects([whole], !cut);
  }
  if (/^(event|data|id|retry|:)/.test(trimmed)) return fromStream(trimmed, cut);
  return null;
}

/** A server-sent event stream: the `data:` payloads that parse as JSON objects, in order. */
function fromStream(text: string, cut: boolean): LlmUsage | null {
  const objects: Json[] = [];
  let ended = false;
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const payload = line.slice(5).trim();
    if (payload === '[DONE]') ended = true;
    const object = parseObject(payload);
    if (object !== null) objects.push(object);
  }
  const usage = fromObjects(objects, false);
  if (usage === null) return null;
  // a stream is whole when its end is there: OpenAI's [DONE], Responses' response.completed,
  // Anthropic's message_stop
  const last = objects.at(-1);
  const stopped = ended || last?.['type'] === 'message_stop' || last?.['type'] === 'response.completed';
  return { ...usage, complete: stopped && !cut };
}

/** Usage from the objects of one response, the later ones adding to or replacing the earlier. */
function fromObjects(objects: readonly Json[], complete: boolean): LlmUsage | null {
  let usage = null as LlmUsage | null;
  for (const object of objects) {
    const found = usageOf(object);
    if (found === null) continue;
    if (usage === null) usage = { ...found, complete };
    else if (found.format === 'anthropic' && found.input_tokens === 0) {
      // message_delta: cumulative output, the input counted at message_start stays
      usage = { ...usage, output_tokens: found.output_tokens, model: usage.model ?? found.model };
    } else usage = { ...found, model: found.model ?? usage.model, complete };
  }
  return usage;
}

/** The usage one object reports itself, by the shape of its `usage`. */
function usageOf(object: Json): Omit<LlmUsage, 'complete'> | null {
  // Responses API streams wrap the response; Anthropic's message_start wraps the message
  const inner = asObject(object['response']) ?? asObject(object['message']) ?? object;
  const usage = asObject(inner['usage']);
  if (usage === null) return null;
  const model =
    typeof inner['model'] === 'string'
      ? inner['model']
      : typeof object['model'] === 'string'
        ? object['model']
        : null;
  if (isCount(usage['prompt_tokens']) || isCount(usage['completion_tokens']))
    return {
      format: 'openai_chat',
      model,
      input_tokens: count(usage['prompt_tokens']),
      output_tokens: count(usage['completion_tokens']),
      cached_input_tokens: count(asObject(usage['prompt_tokens_details'])?.['cached_tokens']),
      cache_write_tokens: 0,
    };
  if (!isCount(usage['input_tokens']) && !isCount(usage['output_tokens'])) return null;
  const anthropic =
    'cache_creation_input_tokens' in usage ||
    'cache_read_input_tokens' in usage ||
    object['type'] === 'message_start' ||
    object['type'] === 'message_delta' ||
    inner['type'] === 'message';
  if (anthropic) {
    const read = count(usage['cache_read_input_tokens']);
    const written = count(usage['cache_creation_input_tokens']);
    return {
      format: 'anthropic',
      model,
      // Anthropic counts cache reads and writes apart from input_tokens: the prompt is their sum
      input_tokens: count(usage['input_tokens']) + read + written,
      output_tokens: count(usage['output_tokens']),
      cached_input_tokens: read,
      cache_write_tokens: written,
    };
  }
  return {
    format: 'openai_responses',
    model,
    input_tokens: count(usage['input_tokens']),
    output_tokens: count(usage['output_tokens']),
    cached_input_tokens: count(asObject(usage['input_tokens_details'])?.['cached_tokens']),
    cache_write_tokens: 0,
  };
}

function parseObject(text: string): Json | null {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return null;
  }
}

function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A token count as given; anything that is not one counts 0 (a hostile body cannot make it negative). */
function count(value: unknown): number {
  return isCount(value) ? value : 0;
}
