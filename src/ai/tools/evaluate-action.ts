/** `evaluate_action`: POST /v1/security/evaluate, the policy preflight, as a tool. */
import { gateContract, gateRequest } from '../../security/gate.contract.js';
import { bodyTool } from '../body-tool.js';

export const evaluateAction = bodyTool({
  name: 'evaluate_action',
  title: 'Ask the policy about an action before taking it',
  kind: 'gate',
  endpoint: gateContract,
  body: gateRequest,
  description:
    "Asks the daemon's policy engine what it decides about an action you are about to take: exactly " +
    'one of `allow`, `deny`, `quarantine`, `kill`, with the `rule_id` and `reason` (and an `advisory` ' +
    'when a detect-only rule matched). Describe the action with `event_type` (`execve` for a command, ' +
    '`file_open`/`file_write` for a file, `network_connect` for a connection, `setuid`/`setgid`, ' +
    '`ptrace`) and the fields it has: `command` and `args` (and `cwd`; a command is judged by every program, path and host it names, `sh -c` strings too), `path`, `dst_ip` and `dst_port`, `target_id`. The verdict ' +
    'comes from the trusted engine, never from you. It runs nothing, blocks nothing and stores ' +
    'nothing: honouring a non-allow decision is your duty. An `allow` is not proof the later action ' +
    'matched what you described or was observed; what actually ran shows up later in list_events and ' +
    'list_risks.',
});
