/**
 * Tetragon's own joining of argv[1..] into `process.arguments` (pkg/process/args.go, ArgsDecoder),
 * written again from its source so tests can check provd's inverse against it.
 */
export function tetragonJoin(args: readonly string[]): string {
  let joined = '';
  for (const arg of args) {
    if (arg.includes(' ')) joined += ` "${arg}"`;
    else joined = joined === '' ? arg : `${joined} ${arg}`;
  }
  return joined;
}
