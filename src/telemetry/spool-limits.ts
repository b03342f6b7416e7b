/** How long and how much the spool holds (docs/contract.md: events wait two minutes for a binding). */

/** The spool's bounds; what passes them is counted, never silently dropped. */
export interface SpoolLimits {
  ttlMs: number;
  maxEvents: number;
  maxBytes: number;
}

export const defaultSpoolLimits: SpoolLimits = {
  ttlMs: 120_000,
  maxEvents: 1_000_000,
  maxBytes: 256 * 1024 * 1024,
};
