/**
 * The domains' modules as workers/store.worker.ts lists them, started in list order. Before any
 * starts, every module's participants (its part in another domain's work: a commit's decisions, a
 * fold of the process rollup, a check of verify) are put on one board with the thread's init data;
 * each `start` reads what it needs from the board, and what a started module lends (its catch-up,
 * its positions) joins the board for the modules after it. The list's types are checked: a module
 * that needs a part no module gives, or one given twice, fails the build.
 */
import type { StoreContext, StoreModule, StoreModuleFactory } from './store-module.js';

/** One domain's module: what it gives before starting, and how it starts from what it needs. */
export interface StoreModuleSpec<Needs extends object, Participants extends object, Lends extends object> {
  name: string;
  /** Its part in other domains' work, given before any module starts. */
  participants: Participants;
  start(context: StoreContext, needs: Needs): Promise<StartedModule<Lends>> | StartedModule<Lends>;
}

/** A started module (its name is the spec's), and what it lends the modules started after it. */
export type StartedModule<Lends extends object> = Omit<StoreModule, 'name'> & { lends: Lends };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any spec, whatever its needs
type AnySpec = StoreModuleSpec<any, object, object>;
type NeedsOf<S> = S extends StoreModuleSpec<infer N, object, object> ? N : never;
type GivesOf<S> = S extends StoreModuleSpec<object, infer P, infer L> ? P & L : never;
type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void
  ? I
  : never;

/** What the board holds for a list: the init data and everything every module gives. */
export type BoardOf<Specs extends readonly AnySpec[], Init extends object> = Init &
  Intersection<GivesOf<Specs[number]>>;

/** Each spec of the list, or a type error naming it when the board lacks a part it needs. */
type Checked<Specs extends readonly AnySpec[], Init extends object> = {
  [I in keyof Specs]: BoardOf<Specs, Init> extends NeedsOf<Specs[I]>
    ? Specs[I]
    : { error: 'this module needs a part no module gives'; module: Specs[I]['name'] };
};

/** The factory the store actor calls once the database is ready: starts `specs` in order. */
export function storeModules<const Specs extends readonly AnySpec[], Init extends object>(
  specs: Specs & Checked<Specs, Init>,
  init: Init,
): StoreModuleFactory {
  return async (context) => {
    const board: Record<string, unknown> = { ...(init as Record<string, unknown>) };
    const give = (from: string, parts: object): void => {
      for (const [part, value] of Object.entries(parts)) {
        if (part in board) throw new Error(`failed to start ${from}: "${part}" is given twice`);
        board[part] = value;
      }
    };
    for (const spec of specs as readonly AnySpec[]) give(spec.name, spec.participants);
    const started: StoreModule[] = [];
    for (const spec of specs as readonly AnySpec[]) {
      const module = await spec.start(context, board);
      give(spec.name, module.lends);
      started.push({ ...module, name: spec.name });
    }
    return started;
  };
}
