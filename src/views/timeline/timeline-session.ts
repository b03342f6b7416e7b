/**
 * The session view of GET /v1/timeline (`provenance.timeline/v1`, `view: "session"`): an agent
 * session, as its hooks and the kernel told it. The agent's own account (prompts, tool calls with
 * the gate's decision, input, result and duration) in the order the daemon stored it; under each
 * tool call the processes whose events carry its id, and under each process what it did. Every
 * link names its evidence: the agent's account is `context_asserted`, a process's tie to its tool
 * call is its events' own level and correlation method. Loader and locale opens are counted, and
 * listed only with `all=true` (telemetry/loader-opens.sql.ts). Lists are bounded; what a bound cuts is counted.
 */
import type { Count, DateTimeText, Integer } from '../../shared/schema/wire-types.js';
import type { CorrelationMethod, EvidenceLevel } from '../../model/codes.js';
import type { EventType } from '../../model/event.js';
import type { ToolCallStatus } from '../../provenance/record/record-answer.js';

/** An agent session's view; for a run no hook wrote, `agent_session` is false and `items` empty. */
export interface TimelineSession {
  schema_version: 'provenance.timeline/v1';
  view: 'session';
  run_id: string;
  /** True when an agent's hooks wrote the run (POST /v1/hooks/{agent}). */
  agent_session: boolean;
  /** The agents whose hooks wrote it (`claude`, `codex`, `gemini`). */
  agents: string[];
  /** True when loader and locale opens are listed (`all=true`); false: only counted. */
  all: boolean;
  bounds: SessionBounds;
  counts: SessionCounts;
  /** Prompts, tool calls and the session's start, stop and end, in the order the daemon stored them. */
  items: SessionItem[];
  /** Items past `bounds.items` (the latest ones). */
  omitted_items: Count;
}

/** How much the view lists. */
export interface SessionBounds {
  items: Count;
  /** Events listed under one tool call (its first ones, over all its processes). */
  events_per_tool_call: Count;
  /** Characters of a prompt, message, tool input or result shown; the rest is cut, and said so. */
  text_chars: Count;
}

/** The session in numbers. */
export interface SessionCounts {
  prompts: Count;
  tool_calls: SessionToolCallCounts;
  /** Hook events given no meaning (Claude's PostToolBatch, Gemini's BeforeModel, ...): stored, not listed. */
  other_hook_events: Count;
  /** Events of the run's tool calls. */
  events: Count;
  /** Of those, loader and locale opens (listed only with all=true). */
  loader_locale_opens: Count;
  /** Events of the run tied to no tool call. */
  unattributed_events: Count;
}

/** Tool calls by what became of them. */
export interface SessionToolCallCounts {
  total: Count;
  /** The gate allowed them (completed, failed, or no result yet). */
  allowed: Count;
  /** The gate denied them (or asked, where the agent cannot). */
  denied: Count;
  /** Allowed, and the agent reported a failure. */
  failed: Count;
  /** Allowed, and the agent reported a result. */
  completed: Count;
  /** Allowed, and no result came (yet). */
  no_result: Count;
}

/** A text the agent sent: its hash always, the text (cut to the bound) only when stored. */
export interface SessionText {
  hash: string;
  /** null when the daemon keeps no hook text (`--keep-hook-text` off). */
  text: string | null;
  /** True when `text` is the first `bounds.text_chars` characters only. */
  cut: boolean;
}

/** What every item says. */
interface SessionItemHead {
  /** When the daemon received it. */
  time: DateTimeText;
  /** Position in the run's context chain: the order the daemon stored it. */
  index: Integer;
  agent: string;
  /** The agent's own account: always `context_asserted`. */
  evidence_level: EvidenceLevel;
  object_hash: string;
}

/** A session start, a prompt, an agent's stop (its last message) or the session's end. */
export interface SessionHookItem extends SessionItemHead {
  item: 'hook_event';
  event: 'session_start' | 'user_prompt' | 'stop' | 'session_end';
  native_event: string;
  /** The prompt (user_prompt) or the assistant's last message (stop); null for the others. */
  text: SessionText | null;
}

/** The gate's decision on a tool call, as sealed in its object. */
export interface SessionDecision {
  decision: string;
  rule_id: string;
  reason: string;
  /** What the agent was answered: allow, deny or ask. */
  answered: string;
}

/** A tool call: the agent's account, and the kernel's under it. */
export interface SessionToolCallItem extends SessionItemHead {
  item: 'tool_call';
  tool_call_id: string;
  tool_name: string;
  status: ToolCallStatus;
  /** null when the call's PreToolUse never came (hooks installed mid-session). */
  decision: SessionDecision | null;
  /** The tool's input, canonical JSON. */
  input: SessionText;
  /** The tool's result, canonical JSON; null without a PostToolUse. */
  result: SessionText | null;
  /** As the agent reported it; null when it did not. */
  duration_ms: number | null;
  ended_at: DateTimeText | null;
  /** True when any event carries the tool call's id: something ran. */
  ran: boolean;
  /** Its events, and how many of them are loader or locale opens, and how many the bound cut. */
  counts: { events: Count; loader_locale_opens: Count; omitted_events: Count };
  /** Processes whose events carry its id, by first event. */
  processes: SessionProcess[];
}

/** How a process is tied to its tool call: its first event's evidence. */
export interface SessionLink {
  evidence_level: EvidenceLevel;
  method: CorrelationMethod;
  confidence: number | null;
}

/** A process (thread group) of a tool call. */
export interface SessionProcess {
  tgid: Integer | null;
  ppid: Integer | null;
  comm: string | null;
  /** Its first execve's argv among the listed events; null without one. */
  argv: string[] | null;
  first_event: DateTimeText;
  link: SessionLink;
  /** Its events in all. */
  events_total: Count;
  loader_locale_opens: Count;
  /** Its listed events, by capture time. */
  events: SessionEvent[];
}

/** An event as the session lists it. */
export interface SessionEvent {
  id: string;
  time: DateTimeText;
  type: EventType;
  evidence_level: EvidenceLevel;
  summary: string;
  /** What it acted on: a path, a destination, a DNS name, an argv ('' when nothing). */
  object: string;
  /** The policy's decision when it judged the event (not a plain allow); null otherwise. */
  decision: { decision: string; rule_id: string } | null;
  /** True for a loader or locale open (listed with all=true only). */
  loader_locale: boolean;
}

/** One item of the session. */
export type SessionItem = SessionHookItem | SessionToolCallItem;
