/**
 * The provenance domain on the store thread: the graph's queries (verify, keys, checkpoints,
 * records; provenance-kinds.ts), registered with the store actor as one module. The telemetry
 * commits store each batch's digest (seal-batches.sql.ts); the checkpoint rounds seal and sign them.
 */
import type { StoreContext } from '../store/store-module.js';
import type { StartedModule, StoreModuleSpec } from '../store/store-modules.js';
import { Checkpointer } from './checkpoints.sql.js';
import { HostKeeper } from './host/host-keeper.js';
import type { HostLimits } from './host/host-limits.js';
import { HostVerifier } from './host/host-verifier.js';
import { countFullVerification } from './host/host-counters.sql.js';
import { classifyStoreError } from '../store/store-error.js';
import { stopSealing } from './seal-batches.sql.js';
import { sealLegacyRuns } from './seal-legacy.sql.js';
import { loadSigningKey, statementSigner, type StatementSigner } from './signing-key.js';
import { provenanceHandlers, type ProvenanceDeps } from './provenance-kinds.js';
import { log } from '../shared/log.js';

/** What the provenance module needs to start. */
export interface ProvenanceStoreInit {
  /** The ed25519 private key (PEM file) checkpoints are signed with; checked by the daemon at start. */
  signingKeyFile: string;
  /** The ECDSA P-256 key (PEM file) attestations are signed with (`--attestation-key ecdsa-p256`); null: the checkpoint key. */
  attestationKeyFile: string | null;
  /** False only under PROVD_FAULT_NO_SEALING: no event_batch objects, no checkpoints. */
  sealing: boolean;
  /** Host event retention and how often the host chain is signed (host/host-keeper.ts). */
  hostLimits: HostLimits;
  /** The host chain's anchor file, beside the database (host/host-anchor.ts). */
  hostAnchorFile: string;
}

/** What the provenance module needs from the board: its init data and other domains' checks. */
export type ProvenanceNeeds = ProvenanceDeps & { provenance: ProvenanceStoreInit };

/** Starts the provenance module on an open, migrated store. */
async function startProvenanceStore(
  context: StoreContext,
  { provenance: init, ...deps }: ProvenanceNeeds,
): Promise<StartedModule<ProvenanceLends>> {
  const { writer, writes } = context;
  await sealLegacyRuns(writer, writes);
  const key = loadSigningKey(init.signingKeyFile);
  const attestationKey =
    init.attestationKeyFile === null
      ? key
      : loadSigningKey(init.attestationKeyFile, 'attestation key', 'ecdsa-p256');
  const checkpointer = new Checkpointer(writer, writes, key);
  const hostKeeper = new HostKeeper(writer, writes, key, init.hostLimits, init.hostAnchorFile);
  if (init.sealing) {
    checkpointer.start();
    await hostKeeper.start();
  } else {
    stopSealing();
    log('warn', 'PROVD_FAULT_NO_SEALING is set: events are stored unsealed and no checkpoint is signed');
  }
  const hostVerifier = new HostVerifier({
    snapshot: (body) => context.snapshot(body),
    changes: () => writes.changes,
    recheck: deps.eventRecheck,
    anchorFile: init.hostAnchorFile,
    witness: {
      through: () => (init.sealing ? hostKeeper.anchoredThrough() : Infinity),
      pending: () => hostKeeper.pendingAnchors(),
    },
    recordFull: (ms) =>
      writes
        .run(() => countFullVerification(writer, ms), { housekeeping: true })
        .catch((error: unknown) =>
          log('warn', 'counting a full verification of the host events failed', {
            error: classifyStoreError(error),
          }),
        ),
    fullEveryMs: init.hostLimits.verifyFullEveryMs,
  });
  hostVerifier.start();
  const queries = provenanceHandlers(
    context,
    { key, attestationKey, checkpointer, sealing: init.sealing, hostVerifier },
    deps,
  );
  return {
    queries,
    // an export reads a run as of a sealing round, as verify does
    lends: {
      sealedFirst: () => (init.sealing ? checkpointer.sealed() : Promise.resolve()),
      signer: statementSigner(key),
      attestationSigner: statementSigner(attestationKey),
    },
    // the batches committed since the last round, sealed and signed before the store closes
    flush: async () => {
      await hostVerifier.drain(); // a background verification ends at its next chunk
      if (init.sealing) await writes.run(() => checkpointer.writeDue(null));
    },
    stop: () => {
      checkpointer.stop();
      hostKeeper.stop();
      hostVerifier.stop();
    },
  };
}

/** What the provenance module lends the modules started after it. */
export interface ProvenanceLends {
  /** Waits for the sealing round, so what is read next is sealed up to the moment it was asked. */
  sealedFirst: () => Promise<void>;
  /** Signs an export's manifest with the key checkpoints are signed with. */
  signer: StatementSigner;
  /** Signs attestations: the checkpoint key, or the P-256 key of `--attestation-key ecdsa-p256`. */
  attestationSigner: StatementSigner;
}

/** The provenance domain on the store thread: it gives nothing to others and lends its sealing wait. */
export const provenanceModule = {
  name: 'provenance',
  participants: {},
  start: startProvenanceStore,
} satisfies StoreModuleSpec<ProvenanceNeeds, Record<string, never>, ProvenanceLends>;
