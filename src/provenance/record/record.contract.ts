/**
 * POST /v1/record as its callers see it: what it answers (its body: record-request.ts), without its
 * handler (record.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import type { RecordAnswer } from './record-answer.js';
import typia from 'typia';
import type { RecordLiveChunk, RecordStreamEnd } from './live-output.js';
import type { EndpointContract } from '../../shared/http/endpoint.js';

/** POST /v1/record: where it is and what it answers. */
export const recordContract = {
  method: 'POST',
  path: '/v1/record',
  operationId: 'record',
  schema: 'record',
  answerType: () => typia.json.schemas<[RecordAnswer, RecordLiveChunk, RecordStreamEnd], '3.1'>(),
} as const satisfies EndpointContract;
