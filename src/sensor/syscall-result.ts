/** A syscall's result as attrs: `result` (0 or -errno), and `failed` with the errno's name when it failed. */

const errnoNames = new Map<number, string>([
  [1, 'EPERM'],
  [2, 'ENOENT'],
  [3, 'ESRCH'],
  [4, 'EINTR'],
  [5, 'EIO'],
  [9, 'EBADF'],
  [11, 'EAGAIN'],
  [13, 'EACCES'],
  [14, 'EFAULT'],
  [16, 'EBUSY'],
  [17, 'EEXIST'],
  [18, 'EXDEV'],
  [20, 'ENOTDIR'],
  [21, 'EISDIR'],
  [22, 'EINVAL'],
  [30, 'EROFS'],
  [36, 'ENAMETOOLONG'],
  [39, 'ENOTEMPTY'],
  [88, 'ENOTSOCK'],
  [97, 'EAFNOSUPPORT'],
  [98, 'EADDRINUSE'],
  [99, 'EADDRNOTAVAIL'],
  [101, 'ENETUNREACH'],
  [110, 'ETIMEDOUT'],
  [111, 'ECONNREFUSED'],
  [113, 'EHOSTUNREACH'],
  [115, 'EINPROGRESS'],
]);

/** The name of `errno` (ENOENT), or `errno N` for one without a name here. */
export function errnoName(errno: number): string {
  return errnoNames.get(errno) ?? `errno ${errno}`;
}

/** EINPROGRESS: a non-blocking connect that goes on; not a failure. */
const inProgress = -115;

export function syscallResult(attrs: Record<string, unknown>, result: number): void {
  attrs.result = result;
  if (result >= 0 || result === inProgress) return;
  attrs.failed = true;
  attrs.error = errnoName(-result);
}
