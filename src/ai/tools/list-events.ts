/** `list_events`: GET /v1/telemetry/events as a tool. */
import { eventsContract, eventsQuery } from '../../telemetry/events.contract.js';
import { queryTool } from '../query-tool.js';

export const listEvents = queryTool({
  name: 'list_events',
  title: "A run's runtime events, one page at a time",
  endpoint: eventsContract,
  query: eventsQuery,
  description:
    'One page of the runtime events attributed to a run, in capture order: process exec and exit, ' +
    'file open, write, rename and unlink, secret reads, connections (and those to metadata or private ' +
    'addresses), DNS queries, setuid/setgid and ptrace attempts, TLS request and response bodies. ' +
    'Filter with `type` (`execve`, `process_exit`, `file_open`, `file_write`, `file_rename`, ' +
    '`file_unlink`, `secret_path`, `network_connect`, `metadata_ip`, `private_cidr`, `dns_query`, ' +
    '`setuid`, `setgid`, `ptrace`, `tls_write`, `tls_read`); page with `limit` (1..1000, default ' +
    "100) and the `cursor` from the previous page's `next_cursor` (it only fits the same run and " +
    'filter). Each event carries its correlation: the method and confidence that tied it to the run ' +
    'and its evidence level. Privilege events prove an attempt, not that it succeeded.',
});
