/**
 * The small integer codes that events and windows store in place of repeated strings
 * (sql/002_telemetry.sql). A code is a position in these lists: append only, never reorder.
 */
import type { Count } from '../shared/schema/wire-types.js';
import { eventSources, eventTypes, type EventSource, type EventType } from './event.js';

/** The binding tiers of the contract (correlation tiers), in the order they are tried. */
export const bindingTiers = ['process', 'cgroup', 'container', 'pid'] as const;
export type BindingTier = (typeof bindingTiers)[number];

/**
 * How an event of an agent's run was tied to one of its hook tool calls (docs/agents.md "The
 * kernel's account of a tool call"): its shell's exec matched the call's command, or the agent
 * wrote the call's path within the call; `_ambiguous` when more than one call fits.
 */
export const toolCallTies = [
  'hook_exec_match',
  'hook_exec_ambiguous',
  'hook_path_time',
  'hook_path_ambiguous',
] as const;
export type ToolCallTie = (typeof toolCallTies)[number];

/** True for a binding tier (a tool call tie or `none` is not one). */
export const isBindingTier = (method: string): method is BindingTier =>
  (bindingTiers as readonly string[]).includes(method);

/** How an event was tied: a binding tier, a tool call tie, or `none`. */
export const correlationMethods = ['none', ...bindingTiers, ...toolCallTies] as const;
export type CorrelationMethod = (typeof correlationMethods)[number];

/** Evidence levels of the contract. */
export const evidenceLevels = [
  'uncorrelated',
  'kernel_correlated',
  'context_asserted',
  'self_observed',
] as const;
export type EvidenceLevel = (typeof evidenceLevels)[number];

/**
 * Where an event stands with respect to the spool: part of a run, waiting for a binding, kept
 * uncorrelated because no binding claimed it within the TTL, or kept uncorrelated because the
 * spool's bounds gave up on it early (the one loss). Code 2 was named `expired` before format 4.
 */
export const spoolStates = ['settled', 'pending', 'unclaimed', 'overflowed'] as const;
export type SpoolState = (typeof spoolStates)[number];

/** Events counted by correlation method; a method no event has is absent. */
export type CountsByMethod = { [method in CorrelationMethod]?: Count };
/** Events counted by evidence level; a level no event has is absent. */
export type CountsByEvidenceLevel = { [level in EvidenceLevel]?: Count };
/** Events counted by spool state; a state no event is in is absent. */
export type CountsBySpoolState = { [state in SpoolState]?: Count };

function codeTable<T extends string>(names: readonly T[]): ReadonlyMap<T, number> {
  return new Map(names.map((name, code) => [name, code]));
}

const typeCodes = codeTable(eventTypes);
const sourceCodes = codeTable(eventSources);
const methodCodes = codeTable(correlationMethods);
const evidenceCodes = codeTable(evidenceLevels);
const spoolCodes = codeTable(spoolStates);

/** Code of an event type; types are a closed list, so every one has a code. */
export const typeCode = (type: EventType): number => typeCodes.get(type)!;
export const sourceCode = (source: EventSource): number => sourceCodes.get(source)!;
export const methodCode = (method: CorrelationMethod): number => methodCodes.get(method)!;
export const evidenceCode = (level: EvidenceLevel): number => evidenceCodes.get(level)!;
export const spoolCode = (state: SpoolState): number => spoolCodes.get(state)!;

/** Names back from codes, for answers. */
export const typeName = (code: number): EventType => eventTypes[code]!;
export const sourceName = (code: number): EventSource => eventSources[code]!;
export const methodName = (code: number): CorrelationMethod => correlationMethods[code]!;
export const evidenceName = (code: number): EvidenceLevel => evidenceLevels[code]!;
export const spoolName = (code: number): SpoolState => spoolStates[code]!;
