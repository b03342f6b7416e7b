/**
 * A temporary directory per test (or per suite), made and removed by mocha's hooks:
 * `const work = useTempDir('provd-tls-')`, then `work.path` inside the tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  /** The directory of the running test (or suite); throws outside one. */
  readonly path: string;
}

/** Registers hooks that make a fresh dir before each test (`per: 'suite'`: once for the suite) and remove it after. */
export function useTempDir(prefix: string, { per = 'test' }: { per?: 'test' | 'suite' } = {}): TempDir {
  let current: string | undefined;
  const make = (): void => {
    current = mkdtempSync(join(tmpdir(), prefix));
  };
  const remove = (): void => {
    if (current !== undefined) rmSync(current, { recursive: true, force: true });
    current = undefined;
  };
  if (per === 'test') {
    beforeEach(make);
    afterEach(remove);
  } else {
    before(make);
    after(remove);
  }
  return {
    get path(): string {
      if (current === undefined) throw new Error(`no temporary dir ${prefix} outside a test`);
      return current;
    },
  };
}
