/**
 * The fields of a Falco alert that carries no `output_fields` (Falco 0.41+ with
 * `json_include_output_fields_property: false`), read back from its `output` text. Falco's rules
 * print them as `label=value` (`process=%proc.name command=%proc.cmdline`, and the container
 * plugin appends `container_id=%container.id ...`). The text is formatted, not structured, and a
 * watched command writes part of it: a label found twice is ambiguous and read as absent, so a
 * command line cannot override a label the rule prints. No pid is read: Falco's rules print none,
 * so a `pid=` in the text may be the command's own, and a pid would tie the alert to a run.
 * Callers mark what comes from here.
 */

/** Labels of Falco's rules (falcosecurity/rules, and the container plugin's append) → field names. */
const labelFields: ReadonlyMap<string, string> = new Map([
  ['evt_type', 'evt.type'],
  ['process', 'proc.name'],
  ['proc_exepath', 'proc.exepath'],
  ['parent', 'proc.pname'],
  ['command', 'proc.cmdline'],
  ['cmdline', 'proc.cmdline'],
  ['pcmdline', 'proc.pcmdline'],
  ['proc_pcmdline', 'proc.pcmdline'],
  ['proc_cwd', 'proc.cwd'],
  ['terminal', 'proc.tty'],
  ['exe_flags', 'evt.arg.flags'],
  ['user', 'user.name'],
  ['user_uid', 'user.uid'],
  ['user_loginuid', 'user.loginuid'],
  ['file', 'fd.name'],
  ['connection', 'fd.name'],
  ['lport', 'fd.lport'],
  ['rport', 'fd.rport'],
  ['fd_type', 'fd.type'],
  ['fd_proto', 'fd.l4proto'],
  ['res', 'evt.res'],
  ['evt_res', 'evt.res'],
  ['container_id', 'container.id'],
  ['container_name', 'container.name'],
  ['container_image_repository', 'container.image.repository'],
  ['container_image_tag', 'container.image.tag'],
  ['k8s_pod_name', 'k8s.pod.name'],
  ['k8s_ns_name', 'k8s.ns.name'],
]);

/** Fields whose values are integers. */
const integerFields = new Set(['user.uid', 'user.loginuid', 'fd.lport', 'fd.rport']);

/** A label: lower case (dotted in older rules: `k8s.ns=`), after a space or an opening parenthesis, before `=`. */
const labelPattern = /(?<=^|[\s(])([a-z][a-z0-9_.]*)=/g;

/** What the text says: the fields read, and the labels found more than once (left out). */
export interface OutputTextFields {
  fields: Record<string, unknown>;
  ambiguous: string[];
}

/** Reads `label=value` pairs from an alert's output text; a value runs to the next label. */
export function fieldsFromOutput(output: string): OutputTextFields {
  const found: { label: string; start: number; valueStart: number }[] = [];
  for (const match of output.matchAll(labelPattern)) {
    found.push({ label: match[1]!, start: match.index, valueStart: match.index + match[0].length });
  }
  // labels per field: two for one field (even two labels of it) leave it out
  const labelsOf = new Map<string, string[]>();
  for (const { label } of found) {
    const field = labelFields.get(label);
    if (field !== undefined) labelsOf.set(field, [...(labelsOf.get(field) ?? []), label]);
  }
  const fields: Record<string, unknown> = {};
  const ambiguous = new Set<string>();
  for (let i = 0; i < found.length; i++) {
    const { label, valueStart } = found[i]!;
    const field = labelFields.get(label);
    if (field === undefined) continue;
    const labels = labelsOf.get(field)!;
    if (labels.length > 1) {
      for (const each of labels) ambiguous.add(each);
      continue;
    }
    const value = valueText(output.slice(valueStart, found[i + 1]?.start ?? output.length));
    if (value === null) continue;
    if (!integerFields.has(field)) fields[field] = value;
    else if (/^-?\d{1,10}$/.test(value)) fields[field] = Number(value);
  }
  return { fields, ambiguous: [...ambiguous].sort() };
}

/** A value as printed: trimmed, a closing parenthesis of the rule's own text dropped; `<NA>` is absent. */
function valueText(raw: string): string | null {
  let value = raw.trim();
  if (value.endsWith(')') && !value.includes('(')) value = value.slice(0, -1).trimEnd();
  return value === '' || value === '<NA>' ? null : value;
}
