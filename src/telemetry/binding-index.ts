/**
 * Ties runtime events to bindings on the normalize hot path (docs/contract.md "Correlation tiers").
 * Every tier is a map lookup by the event's own key, then one binary search in that key's timeline;
 * nothing scans all bindings, and a match returns a Correlation built when the binding was added,
 * so correlating allocates nothing (a container id is resolved once per distinct id).
 */
import type { Binding } from './binding.js';
import { tierConfidence } from './binding.js';
import type { BindingTier, EvidenceLevel } from '../model/codes.js';
import type { ParsedEvent } from '../model/event.js';

/** A tier that matched: the method name stored with the event. */
export type MatchMethod = BindingTier;

/** Why an event belongs to a binding. Shared between events: treat it as read-only. */
export interface Correlation {
  readonly binding: Readonly<Binding>;
  readonly method: MatchMethod;
  /** min(tier confidence, binding confidence). */
  readonly confidence: number;
  readonly evidenceLevel: Extract<EvidenceLevel, 'kernel_correlated' | 'context_asserted'>;
}

// sentinels that order an unbounded start before, and an open end after, every real instant
const unboundedStart = -(1n << 64n);
const openEnd = 1n << 64n;
/** Docker's short form; shorter hex strings are too ambiguous to match by prefix. */
export const minContainerPrefix = 12;
/** A full container id is 64 hex digits (sha256); a longer hex string is something else. */
export const maxContainerId = 64;
/** Prefixes a container id may carry, stripped before comparing. */
export const runtimeSchemes = ['docker://', 'containerd://', 'cri-o://'] as const;
// bounds the per-event container cache against a stream of made-up ids
const maxCachedContainers = 4096;
const noTimelines: readonly Timeline[] = Object.freeze([]);

/** One binding as the index holds it: its interval as comparable instants and its prebuilt answers. */
interface Entry {
  binding: Binding;
  start: bigint;
  end: bigint;
  seq: number;
  correlations: Record<MatchMethod, Correlation>;
}

/**
 * True when `a` wins over `b` within a tier: a system-side binding over an `ai_asserted` one (an
 * agent's own assertion never takes events from a binding the control plane or a harness made:
 * interface spec, trust boundary), then later start, then later creation, then later add.
 */
function isLater(a: Entry, b: Entry): boolean {
  const aAsserted = a.binding.binding_source === 'ai_asserted';
  if (aAsserted !== (b.binding.binding_source === 'ai_asserted')) return !aAsserted;
  if (a.start !== b.start) return a.start > b.start;
  if (a.binding.created_ns !== b.binding.created_ns) return a.binding.created_ns > b.binding.created_ns;
  return a.seq > b.seq;
}

/** The lower-case id without a docker://, containerd:// or cri-o:// scheme; allocates only to change it. */
export function normalizeContainerId(raw: string): string {
  let id = raw;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c >= 65 && c <= 90) {
      id = id.toLowerCase();
      break;
    }
  }
  for (const scheme of runtimeSchemes) {
    if (id.startsWith(scheme)) return id.slice(scheme.length);
  }
  return id;
}

/** True for 12..64 lower-case hex digits: a container id, full or truncated, that prefixes may match. */
export function isTruncatable(id: string): boolean {
  if (id.length < minContainerPrefix || id.length > maxContainerId) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** Same container when one hex id is a prefix of the other: runtimes and sensors truncate ids. */
function isSameContainer(a: string, b: string): boolean {
  return a.length <= b.length ? b.startsWith(a) : a.startsWith(b);
}

/**
 * The bindings of one key as a partition of time into segments, each holding the binding that wins
 * there (the latest-starting one that covers it, system-side before `ai_asserted`). A lookup is one binary search however many
 * bindings the key has accumulated, even between intervals or under a long open binding; an insert
 * splices the arrays, which is fine because bindings are rare next to events.
 */
class Timeline {
  /** Segment i covers [bounds[i], bounds[i + 1]); the last one runs on forever. */
  private readonly bounds: bigint[] = [];
  private readonly winners: (Entry | undefined)[] = [];

  insert(entry: Entry): void {
    // entries cover [start, end] inclusive; segments are half-open
    const first = this.split(entry.start);
    const last = this.split(entry.end + 1n);
    const { winners } = this;
    for (let i = first; i < last; i++) {
      const current = winners[i];
      if (current === undefined || isLater(entry, current)) winners[i] = entry;
    }
    this.merge(Math.max(first - 1, 0), Math.min(last + 1, winners.length - 1));
  }

  /** The winning entry (see isLater) whose interval holds `timeNs`. */
  find(timeNs: bigint): Entry | undefined {
    const at = this.segmentAt(timeNs);
    return at < 0 ? undefined : this.winners[at];
  }

  /** Index of the last segment starting at or before `timeNs`, or -1. */
  private segmentAt(timeNs: bigint): number {
    const { bounds } = this;
    let lo = 0;
    let hi = bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (bounds[mid]! <= timeNs) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /** Makes `at` a segment bound (the split halves keep their winner) and returns its index. */
  private split(at: bigint): number {
    const index = this.segmentAt(at);
    if (index >= 0 && this.bounds[index] === at) return index;
    this.bounds.splice(index + 1, 0, at);
    this.winners.splice(index + 1, 0, index >= 0 ? this.winners[index] : undefined);
    return index + 1;
  }

  /** Joins neighbours with the same winner in [from, to], so segments stay about two per binding. */
  private merge(from: number, to: number): void {
    const { bounds, winners } = this;
    for (let i = to; i > from; i--) {
      if (winners[i] === winners[i - 1]) {
        bounds.splice(i, 1);
        winners.splice(i, 1);
      }
    }
  }
}

function timelineOf<K>(map: Map<K, Timeline>, key: K): Timeline {
  let timeline = map.get(key);
  if (timeline === undefined) {
    timeline = new Timeline();
    map.set(key, timeline);
  }
  return timeline;
}

/** The process_id as a pid when it is the canonical decimal an event without exec_id is compared as. */
export function decimalProcessId(processId: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(processId)) return null;
  const pid = Number(processId);
  return pid <= 0xffff_ffff ? pid : null;
}

/**
 * All bindings a worker knows, indexed by each system-side key. Tiers are tried in contract order,
 * first match wins: process identity, cgroup, container, pid/root pid.
 *
 * Process identity of an event is Tetragon's `attrs.exec_id` when present (unique per exec across
 * the node, so pid reuse cannot confuse it), else the decimal tgid, else the pid. A harness that
 * reads Tetragon should bind `process_id` = the exec_id; one that starts a process itself should
 * bind its pid as a decimal `process_id` (plus started_at, which guards against pid reuse) and,
 * for the process tree, `root_pid`.
 */
export class BindingIndex {
  private readonly byExecId = new Map<string, Timeline>();
  private readonly byProcessPid = new Map<number, Timeline>();
  private readonly byCgroup = new Map<string, Timeline>();
  /** By normalized container id. */
  private readonly byContainer = new Map<string, Timeline>();
  /** Held hex ids by their first 12 characters: every truncation of one id lands in one bucket. */
  private readonly containerPrefixes = new Map<string, string[]>();
  /**
   * An event's container id as received → the timelines it matches. Events repeat a handful of ids,
   * and this spares each one the normalizing and prefix comparisons (V8's startsWith took about
   * 300 ns on 64 characters, measured). Cleared when a container binding arrives or when it is full.
   */
  private readonly containerCache = new Map<string, readonly Timeline[]>();
  private readonly byPid = new Map<number, Timeline>();
  private readonly ids = new Set<string>();

  /** How many bindings the index holds. */
  get size(): number {
    return this.ids.size;
  }

  /** How many bindings were added; a worker compares it with the broadcaster's count to detect a gap. */
  get version(): number {
    return this.ids.size;
  }

  /** Indexes a binding under each of its keys; false when a binding with that id is already held. */
  add(binding: Binding): boolean {
    if (this.ids.has(binding.binding_id)) return false;
    const container = binding.container_id === null ? null : normalizeContainerId(binding.container_id);
    const entry: Entry = {
      binding,
      start: binding.startNs ?? unboundedStart,
      end: binding.endNs ?? openEnd,
      seq: this.ids.size,
      correlations: buildCorrelations(binding),
    };
    this.ids.add(binding.binding_id);

    if (binding.process_id !== null) {
      timelineOf(this.byExecId, binding.process_id).insert(entry);
      const pid = decimalProcessId(binding.process_id);
      if (pid !== null) timelineOf(this.byProcessPid, pid).insert(entry);
    }
    if (binding.cgroup_id !== null) timelineOf(this.byCgroup, binding.cgroup_id).insert(entry);
    if (container !== null && container !== '') {
      if (!this.byContainer.has(container) && isTruncatable(container)) {
        const prefix = container.slice(0, minContainerPrefix);
        const held = this.containerPrefixes.get(prefix);
        if (held === undefined) this.containerPrefixes.set(prefix, [container]);
        else held.push(container);
      }
      timelineOf(this.byContainer, container).insert(entry);
      this.containerCache.clear();
    }
    if (binding.pid !== null) timelineOf(this.byPid, binding.pid).insert(entry);
    if (binding.root_pid !== null && binding.root_pid !== binding.pid) {
      timelineOf(this.byPid, binding.root_pid).insert(entry);
    }
    return true;
  }

  /** The binding an event belongs to and why, or undefined when no binding claims it. */
  correlate(event: ParsedEvent): Correlation | undefined {
    const time = event.timeNs;

    let timeline: Timeline | undefined;
    const execId = event.attrs.exec_id;
    if (typeof execId === 'string' && execId !== '') {
      timeline = this.byExecId.get(execId);
    } else {
      const pid = event.tgid ?? event.pid;
      if (pid !== null) timeline = this.byProcessPid.get(pid);
    }
    let match = timeline?.find(time);
    if (match !== undefined) return match.correlations.process;

    if (event.cgroupId !== null) {
      match = this.byCgroup.get(event.cgroupId)?.find(time);
      if (match !== undefined) return match.correlations.cgroup;
    }

    if (event.containerId !== null) {
      const timelines = this.containerTimelines(event.containerId);
      for (let i = 0; i < timelines.length; i++) match = later(match, timelines[i]!.find(time));
      if (match !== undefined) return match.correlations.container;
    }

    match = this.findByPid(event.pid, time);
    if (event.tgid !== event.pid) match = later(match, this.findByPid(event.tgid, time));
    match = later(match, this.findByPid(event.ppid, time));
    return match?.correlations.pid;
  }

  /** The timelines of every held id that equals the event's id, truncates it, or is truncated by it. */
  private containerTimelines(raw: string): readonly Timeline[] {
    let timelines = this.containerCache.get(raw);
    if (timelines !== undefined) return timelines;
    const container = normalizeContainerId(raw);
    const found: Timeline[] = [];
    if (isTruncatable(container)) {
      for (const held of this.containerPrefixes.get(container.slice(0, minContainerPrefix)) ?? []) {
        if (isSameContainer(held, container)) found.push(this.byContainer.get(held)!);
      }
    } else {
      const exact = this.byContainer.get(container);
      if (exact !== undefined) found.push(exact);
    }
    timelines = found.length === 0 ? noTimelines : found;
    if (this.containerCache.size >= maxCachedContainers) this.containerCache.clear();
    this.containerCache.set(raw, timelines);
    return timelines;
  }

  private findByPid(pid: number | null, time: bigint): Entry | undefined {
    return pid === null ? undefined : this.byPid.get(pid)?.find(time);
  }
}

function later(a: Entry | undefined, b: Entry | undefined): Entry | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return isLater(b, a) ? b : a;
}

/** The four answers a binding can give, built once so that correlate() only returns one. */
export function buildCorrelations(binding: Binding): Record<MatchMethod, Correlation> {
  const evidenceLevel = binding.binding_source === 'ai_asserted' ? 'context_asserted' : 'kernel_correlated';
  const build = (method: MatchMethod): Correlation =>
    Object.freeze({
      binding,
      method,
      confidence: Math.min(tierConfidence[method], binding.confidence),
      evidenceLevel,
    });
  return {
    process: build('process'),
    cgroup: build('cgroup'),
    container: build('container'),
    pid: build('pid'),
  };
}
