/**
 * The fuzz phase: `concurrency` clients, each with its own seeded stream, send requests over every
 * operation of openapi.json (valid, at the edges, hostile), stray paths and broken framing, for a
 * duration or a request count. Valid list answers are followed page by page. Each answer is checked
 * (answer-checks.ts); a daemon that falls over is counted and started again.
 */
import { listOperations, type ApiOperation } from './api-operations.js';
import { checkAnswer } from './answer-checks.js';
import { framingRequest, strayPathRequest } from './framing-requests.js';
import { sweepBodies } from './ndjson-sweep.js';
import { fuzzRequest, type FuzzContext, type FuzzRequest, type FuzzStyle } from './fuzz-request.js';
import { jsonOf } from './soak-api.js';
import { SoakClient, type SoakRequest } from './soak-client.js';
import type { PhaseTally } from './phase-tally.js';
import { Rng } from './rng.js';
import type { SoakDaemon } from './soak-daemon.js';
import type { SoakOptions } from './soak-options.js';

/** The fuzz options (a request count, or when null a duration), with the run's seed. */
export type FuzzPlan = SoakOptions['fuzz'] & { seed: number };

/** Answer timeout for requests not held to the deadline (hostile bodies of many MiB). */
const slowTimeoutMs = 60_000;
/** Framing requests that lie about their length wait this long, then their connection is dropped. */
const framingTimeoutMs = 3_000;
/** Checks that fail nothing: a request valid by the schema may still be refused for what it means. */
const noteKinds = new Set(['valid_refused']);

/** Runs the fuzz phase against `daemon`, counting into `tally`. */
export async function runFuzz(
  daemon: SoakDaemon,
  context: FuzzContext,
  plan: FuzzPlan,
  tally: PhaseTally,
): Promise<void> {
  const operations = listOperations();
  const sweep = sweepRequests(operations, context);
  const until = Date.now() + plan.seconds * 1000;
  let sent = 0;
  const more = (): boolean => (plan.requests === null ? Date.now() < until : sent < plan.requests);
  const worker = async (index: number): Promise<void> => {
    const rng = new Rng(plan.seed, `fuzz-${index}`);
    const client = new SoakClient(() => daemon.port);
    // this worker's share of the sweep first, then random requests; a next page goes first in line
    const queue = sweep.filter((_request, i) => i % plan.concurrency === index);
    for (let n = 1; more(); n++) {
      sent++;
      const origin = `fuzz seed=${plan.seed} worker=${index} request=${n}`;
      const kind = queue.length > 0 ? 'queued' : rng.weighted({ operation: 92, stray: 3, framing: 5 });
      if (kind === 'framing') {
        const request = framingRequest(rng, context.token, daemon.port);
        const raw = new SoakClient(() => daemon.port);
        const outcome = await raw.send(request, framingTimeoutMs);
        raw.close();
        tally.count({ request, outcome, wellFormed: false, origin });
      } else {
        const fuzz =
          kind === 'queued'
            ? queue.shift()!
            : kind === 'stray'
              ? stray(rng, context, operations)
              : pickRequest(rng, operations, context);
        const outcome = await client.send(fuzz.request, fuzz.wellFormed ? slowTimeoutMs : slowTimeoutMs * 2);
        const record = {
          request: fuzz.request,
          outcome,
          wellFormed: fuzz.wellFormed,
          origin: `${origin} (${fuzz.note})`,
        };
        tally.count(record);
        if ('answer' in outcome) {
          for (const problem of checkAnswer(fuzz, outcome.answer))
            tally.problem(record, problem.kind, problem.detail, noteKinds.has(problem.kind));
          const next = nextPage(
            fuzz,
            outcome.answer.status === 200 ? jsonOf(outcome)?.body : undefined,
            context,
          );
          if (next !== undefined) queue.unshift(next);
        } else {
          client.close();
          // a request HTTP can parse is owed an answer, whatever it holds (well-formed ones failed already)
          if (!fuzz.wellFormed && owesAnswer(fuzz.request)) tally.fail(record, 'unanswered', outcome.error);
        }
      }
      if (!daemon.alive) await restartAfterCrash(daemon, tally, origin);
    }
    client.close();
  };
  await Promise.all(Array.from({ length: plan.concurrency }, (_v, i) => worker(i)));
}

/** Methods uWS parses: it closes the connection on any other (`get`, `FOO`) without an answer. */
const parsedMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']);
/** The daemon's default body limit: past it, it answers 413 and closes, and the answer may be lost in the reset. */
const maxBodyBytes = 64 * 1024 * 1024;

/**
 * Whether the daemon owes `request` an answer: a method and a target HTTP/1.1 can parse (visible
 * ASCII from a `/`), and a body it reads rather than refuses mid-stream.
 */
function owesAnswer(request: SoakRequest): boolean {
  return (
    parsedMethods.has(request.method) &&
    /^\/[\x21-\x7e]*$/.test(request.target) &&
    (request.body?.length ?? 0) <= maxBodyBytes
  );
}

/** Of the operations, ingest takes this share: its bodies are where hostile bytes reach the store. */
const ingestShare = 0.25;

function pickRequest(rng: Rng, operations: ApiOperation[], context: FuzzContext): FuzzRequest {
  const style = rng.weighted<FuzzStyle>({ valid: 45, edge: 20, hostile: 35 });
  const ingest = operations.find((operation) => operation.operationId === 'ingest');
  const operation = ingest !== undefined && rng.chance(ingestShare) ? ingest : rng.pick(operations);
  return fuzzRequest(rng, operation, style, context);
}

/** The sweep's bodies as well-formed ingest requests with the token. */
function sweepRequests(operations: ApiOperation[], context: FuzzContext): FuzzRequest[] {
  const ingest = operations.find((operation) => operation.operationId === 'ingest');
  if (ingest === undefined) return [];
  return sweepBodies(context.corpus).map(({ format, body, note }) => ({
    request: {
      method: 'POST',
      target: `${ingest.path}?format=${format}`,
      headers: [
        ['Authorization', `Bearer ${context.token}`],
        ['Content-Type', 'application/x-ndjson'],
      ],
      body,
    },
    operation: ingest,
    style: 'hostile',
    wellFormed: true,
    mustRefuseAuth: false,
    note,
  }));
}

/** A stray-path request, checked as if it were an unknown operation. */
function stray(rng: Rng, context: FuzzContext, operations: ApiOperation[]): FuzzRequest {
  const request = strayPathRequest(rng, context.token);
  const path = request.target.split('?')[0]!;
  const operation: ApiOperation = operations.find((op) => op.path === path) ?? {
    method: 'GET',
    path,
    operationId: 'stray',
    parameters: [],
    body: undefined,
    statuses: new Set([200, 303, 404, 405]), // 303: `/` sends a browser to the web view
    isPublic: false,
  };
  return {
    request,
    operation,
    style: 'hostile',
    wellFormed: false,
    mustRefuseAuth: false,
    note: 'stray path',
  };
}

/** The request for the next page of a valid list answer, learning the ids it names on the way. */
function nextPage(
  fuzz: FuzzRequest,
  body: Record<string, unknown> | undefined,
  context: FuzzContext,
): FuzzRequest | undefined {
  if (body === undefined || fuzz.style === 'hostile') return undefined;
  context.known.learn(body);
  const cursor = body['next_cursor'];
  if (typeof cursor !== 'string') return undefined;
  const [path, query = ''] = fuzz.request.target.split('?');
  const params = query.split('&').filter((pair) => pair !== '' && !pair.startsWith('cursor='));
  params.push(`cursor=${encodeURIComponent(cursor)}`);
  return {
    ...fuzz,
    request: { ...fuzz.request, target: `${path}?${params.join('&')}` },
    note: `${fuzz.note}; next page`,
  };
}

/** Starts a daemon that exited on its own again, so the phase goes on, noting where it fell. */
async function restartAfterCrash(daemon: SoakDaemon, tally: PhaseTally, origin: string): Promise<void> {
  // the crash itself is counted (and fails the run) when the phase closes; this notes where it was
  if (await daemon.ensureRunning())
    tally.note('daemon_exited', `the daemon exited at or just before ${origin}`);
}
