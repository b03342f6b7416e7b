/** GET /v1/live: the HTTP process can respond; nothing else is checked (spec rule 2 of health endpoints). */
import { jsonReply, type HttpReply } from '../shared/http/http-reply.js';

/** The liveness body (spec: Liveness body). */
export interface Liveness {
  schema_version: 'provenance.daemon_liveness/v1';
  status: 'ok';
}

const body: Liveness = { schema_version: 'provenance.daemon_liveness/v1', status: 'ok' };

/** The one answer of /v1/live, built once. */
export const livenessReply: HttpReply = jsonReply(200, body);
