/** `provd attest RUN`: a run's in-toto attestation, as a Sigstore bundle on stdout. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { RunAttestation } from '../../views/attest/run-attestation.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { writeJson } from '../output/json-out.js';
import { RunQueryCommand } from '../run-query-command.js';

export class AttestCommand extends RunQueryCommand {
  static override paths = [['attest']];

  static override usage = Command.Usage({
    description: "Write a run's in-toto attestation as a Sigstore bundle",
    details: `
      Asks \`GET /v1/graph/attestation\` for the run's in-toto Statement v1 (Runtime Trace
      predicate v0.2: its execs, network destinations, DNS names and file accesses; subjects: its
      latest checkpoint and the files its recorded commands wrote with a content hash), signed as a
      DSSE envelope by the daemon's checkpoint key, and writes the Sigstore bundle v0.3 to stdout
      (redirect it to a file). Verify it with the key of the id on stderr
      (\`GET /v1/graph/keys\`): docs/provenance.md, "Attestations", shows the commands. With
      \`--json\`, prints the whole \`provenance.attestation/v1\` body instead.

      Exit code 0 when the bundle was written, 1 when the daemon refused (an unknown run, a wrong
      token), 2 when the daemon cannot be reached or for bad usage.
    `,
    examples: [
      ['A run to a file', '$0 attest run-1 > run-1.sigstore.json'],
      ['The payload, decoded', '$0 attest run-1 | jq -r .dsseEnvelope.payload | base64 -d | jq .'],
    ],
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    const read = await readDaemon(
      baseUrl,
      `/v1/graph/attestation?${new URLSearchParams({ run: this.run }).toString()}`,
      stderr,
    );
    if (isFailedRead(read)) return read.exitCode;
    if (!typia.is<RunAttestation>(read.body)) {
      stderr.write(`provd: unexpected answer from the daemon (not a provenance.attestation/v1 body)\n`);
      return unreachableExitCode;
    }
    const body = read.body;
    if (this.json) {
      writeJson(stdout, body);
      return 0;
    }
    const text = JSON.stringify(body.bundle, null, 2) + '\n';
    stdout.write(text);
    stderr.write(
      `provd: attested run ${body.run_id}: ${body.subjects} subject${body.subjects === 1 ? '' : 's'}, ` +
        `checkpoint ${body.checkpoint.hash}, signed by ${body.key_id}\n`,
    );
    return 0;
  }
}
