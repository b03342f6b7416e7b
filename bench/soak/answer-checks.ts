/**
 * What every fuzzed answer must respect beyond its status class: a body that matches openapi.json
 * for its operation and status, a status the operation documents, a refusal for a wrong token, a
 * Retry-After with every 429, and a valid request never refused for its form.
 */
import { validateResponse } from '../../test/support/openapi-validator.js';
import type { FuzzRequest } from './fuzz-request.js';
import type { HttpAnswer } from './http-answer.js';

/** Statuses any endpoint may answer for reasons outside its own contract. */
const everywhere = new Set([404, 405, 413, 415, 429, 431, 500]);

/** Problems with one answer; an empty list when it is right. */
export function checkAnswer(fuzz: FuzzRequest, answer: HttpAnswer): { kind: string; detail: string }[] {
  const problems: { kind: string; detail: string }[] = [];
  const { status } = answer;
  const method = fuzz.request.method.toUpperCase();
  const path = fuzz.operation.path;
  if (fuzz.mustRefuseAuth && status < 300)
    problems.push({ kind: 'auth_bypass', detail: `answered ${status} to a request without the right token` });
  if (status === 429 && answer.headers.get('retry-after') === undefined)
    problems.push({ kind: 'no_retry_after', detail: '429 without Retry-After' });
  if (
    fuzz.wellFormed &&
    fuzz.style !== 'hostile' &&
    status >= 400 &&
    status < 500 &&
    ![404, 409, 429].includes(status)
  )
    problems.push({ kind: 'valid_refused', detail: `${status} ${answer.body.subarray(0, 300).toString()}` });
  if (
    fuzz.wellFormed &&
    fuzz.operation.operationId === 'ingest' &&
    status !== 200 &&
    status !== 429 &&
    status < 500
  )
    problems.push({ kind: 'ingest_refused', detail: `${status} ${answer.body.subarray(0, 300).toString()}` });
  if (method === fuzz.operation.method && !fuzz.operation.statuses.has(status) && !everywhere.has(status))
    problems.push({
      kind: 'contract_mismatch',
      detail: `status ${status} is not documented for ${method} ${path}`,
    });
  if (method === 'HEAD' || !(answer.headers.get('content-type') ?? '').startsWith('application/json'))
    return problems;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString());
  } catch {
    problems.push({
      kind: 'contract_mismatch',
      detail: `${status}: a JSON content type over a body that is not JSON`,
    });
    return problems;
  }
  for (const error of validateResponse({ method, path, status, body }))
    problems.push({ kind: 'contract_mismatch', detail: error });
  return problems;
}
