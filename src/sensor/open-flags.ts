/** open(2) flags as text ("O_WRONLY|O_CREAT|O_TRUNC"), the way the native format spells them. */

// x86_64 and arm64 share these; O_DIRECTORY, O_NOFOLLOW, O_DIRECT and O_LARGEFILE differ on arm64
const sharedFlags: [number, string][] = [
  [0o100, 'O_CREAT'],
  [0o200, 'O_EXCL'],
  [0o400, 'O_NOCTTY'],
  [0o1000, 'O_TRUNC'],
  [0o2000, 'O_APPEND'],
  [0o4000, 'O_NONBLOCK'],
  [0o10000, 'O_DSYNC'],
  [0o20000, 'O_ASYNC'],
  [0o1000000, 'O_NOATIME'],
  [0o2000000, 'O_CLOEXEC'],
  [0o4000000, 'O_SYNC'],
  [0o10000000, 'O_PATH'],
  [0o20000000, 'O_TMPFILE'],
];
const x86Flags: [number, string][] = [
  [0o40000, 'O_DIRECT'],
  [0o100000, 'O_LARGEFILE'],
  [0o200000, 'O_DIRECTORY'],
  [0o400000, 'O_NOFOLLOW'],
];
const arm64Flags: [number, string][] = [
  [0o40000, 'O_DIRECTORY'],
  [0o100000, 'O_NOFOLLOW'],
  [0o200000, 'O_DIRECT'],
  [0o400000, 'O_LARGEFILE'],
];
const flagNames = [...sharedFlags, ...(process.arch === 'arm64' ? arm64Flags : x86Flags)];
const accessModes = ['O_RDONLY', 'O_WRONLY', 'O_RDWR'];

/** The access mode and every known flag; bits no name covers are kept as hex. */
export function openFlagsText(flags: number): string {
  const names = [accessModes[flags & 3] ?? 'O_ACCMODE'];
  let rest = flags & ~3;
  for (const [bit, name] of flagNames) {
    // O_TMPFILE includes O_DIRECTORY's bit: name it only when all of its bits are set
    if ((rest & bit) === bit) {
      names.push(name);
      rest &= ~bit;
    }
  }
  if (rest !== 0) names.push(`0x${(rest >>> 0).toString(16)}`);
  return names.join('|');
}

/** Whether an open may change the file: write access, or creating or truncating it. */
export function opensForWriting(flags: number): boolean {
  return (flags & 3) !== 0 || (flags & 0o1100) !== 0;
}
