/**
 * The destination of a Falco `connect` alert. Falco writes it as `fd.rip` + `fd.rport`, as
 * `fd.sip` + `fd.sport`, or inside `fd.name` (`client:port->server:port`); some exporters put the
 * port in `fd.rip` (`ip:port`) or a host name instead of an address (`api.example.com:443`).
 */
import { isIpAddress } from '../telemetry/ip-address.js';
import { readCountOrDecimal, wrongType } from './field-value.js';
import { rejectLine, rejectWrongType, type LineRejection } from './line-rejection.js';

/** The port in `text[start, end)`: 1..5 decimal digits up to 65535, else -1. */
function parsePort(text: string, start: number, end: number): number {
  if (end <= start || end - start > 5) return -1;
  let port = 0;
  for (let at = start; at < end; at++) {
    const digit = text.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) return -1;
    port = port * 10 + digit;
  }
  return port <= 65_535 ? port : -1;
}

/**
 * Copies a connect alert's destination into attrs: `dst_ip` when it is an IP address, else `dst_host`,
 * and `dst_port`. A connect without any destination field is still an event; a malformed one is not.
 */
export function readFalcoDestination(
  fields: Record<string, unknown>,
  attrs: Record<string, unknown>,
): LineRejection | undefined {
  let name = 'fd.rip';
  let portName = 'fd.rport';
  let value = fields[name];
  if (value === undefined || value === null) {
    name = 'fd.sip';
    portName = 'fd.sport';
    value = fields[name];
  }
  if (value === undefined || value === null) {
    name = 'fd.name';
    portName = '';
    value = fields[name];
  }
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return rejectWrongType(`output_fields["${name}"]`, 'a string', value);

  // fd.name of a socket is "local->remote"; the remote side is the destination
  const arrow = name === 'fd.name' ? value.indexOf('->') : -1;
  let start = arrow === -1 ? 0 : arrow + 2;
  let end = value.length;
  let portStart = -1;
  if (value.charCodeAt(start) === 91) {
    // '[v6]:port'
    const close = value.indexOf(']', start);
    if (close === -1) return rejectLine('wrong_type', `output_fields["${name}"]: unbalanced '['`);
    if (close + 1 < end) {
      if (value.charCodeAt(close + 1) !== 58)
        return rejectLine('wrong_type', `output_fields["${name}"]: junk after ']'`);
      portStart = close + 2;
    }
    start += 1;
    end = close;
  } else {
    const colon = value.indexOf(':', start);
    // exactly one ':' is host:port; more than one is a bare IPv6 address
    if (colon !== -1 && value.indexOf(':', colon + 1) === -1) {
      portStart = colon + 1;
      end = colon;
    }
  }
  if (end <= start) return rejectLine('wrong_type', `output_fields["${name}"]: no address`);
  const host = value.slice(start, end);
  if (isIpAddress(host)) attrs.dst_ip = host;
  else attrs.dst_host = host;

  const portValue = portName === '' ? undefined : fields[portName];
  if (portValue !== undefined && portValue !== null) {
    const port = readCountOrDecimal(portValue);
    if (port === wrongType || port === null || port > 65_535) {
      return rejectWrongType(`output_fields["${portName}"]`, 'a port in 0..65535', portValue);
    }
    attrs.dst_port = port;
  } else if (portStart !== -1) {
    const port = parsePort(value, portStart, value.length);
    if (port < 0) return rejectLine('wrong_type', `output_fields["${name}"]: the port is not in 0..65535`);
    attrs.dst_port = port;
  }
  return undefined;
}
