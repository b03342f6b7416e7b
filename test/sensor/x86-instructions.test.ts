import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readElfFacts, readFunctionCode } from '../../src/sensor/elf-file.js';
import { decodeFunction, UndecodableInstruction } from '../../src/sensor/x86-instructions.js';
import {
  buildGo,
  fetchedGo,
  goTlsClientSource,
  hasFetchedGo,
  supportedGoVersions,
  systemGo,
} from '../support/go-toolchain.js';

/** Bytes from lines of hex bytes, each line's text after its bytes ignored. */
function hex(text: string): Uint8Array {
  const bytes = text.split('\n').flatMap((line) => {
    const tokens = line.trim().split(/\s+/);
    const end = tokens.findIndex((token) => !/^[0-9a-f]{2}$/.test(token));
    return end === -1 ? tokens : tokens.slice(0, end);
  });
  return Buffer.from(bytes.filter((token) => token !== '').join(''), 'hex');
}

/** Each function's instruction offsets as objdump decodes them, by name. */
function objdumpStarts(binary: string): Map<string, number[]> {
  const listing = execFileSync('objdump', ['-d', '--no-show-raw-insn', binary], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const functions = new Map<string, number[]>();
  let current: { address: number; starts: number[] } | null = null;
  for (const line of listing.split('\n')) {
    const header = /^([0-9a-f]+) <(.*)>:$/.exec(line);
    if (header !== null) {
      // a name given twice (runtime/cgo(.text)) cannot be told apart: left out
      current = functions.has(header[2]!) ? null : { address: parseInt(header[1]!, 16), starts: [] };
      if (current !== null) functions.set(header[2]!, current.starts);
      else functions.delete(header[2]!);
      continue;
    }
    const instruction = /^\s+([0-9a-f]+):\t(.*)$/.exec(line);
    if (instruction !== null && current !== null) {
      if (instruction[2]!.includes('(bad)')) functions.delete([...functions.keys()].at(-1)!); // data, not code
      current.starts.push(parseInt(instruction[1]!, 16) - current.address);
    }
  }
  return functions;
}

function hasObjdump(): boolean {
  try {
    execFileSync('objdump', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Decodes every function of `binary` it can; each one decoded must match objdump's instructions. */
async function compareWithObjdump(binary: string): Promise<void> {
  const expected = objdumpStarts(binary);
  const facts = await readElfFacts(binary, [...expected.keys()]);
  const agreed: string[] = [];
  let refused = 0;
  for (const [name, code] of facts.symbols) {
    if (code.size === 0 || !expected.has(name)) continue;
    let starts: number[];
    try {
      starts = decodeFunction(await readFunctionCode(binary, code, 1 << 24)).starts;
    } catch (error) {
      assert.ok(error instanceof UndecodableInstruction, String(error));
      refused++;
      continue;
    }
    assert.deepEqual(
      starts,
      expected.get(name)!.filter((start) => start < code.size),
      name,
    );
    agreed.push(name);
  }
  for (const name of ['crypto/tls.(*Conn).Read', 'crypto/tls.(*Conn).Write'])
    assert.ok(agreed.includes(name), name);
  assert.ok(
    agreed.length > 1000 && refused < agreed.length / 100,
    `${agreed.length} agreed, ${refused} refused`,
  );
}

describe('x86-64 instruction decoding (where the Go TLS return probes go)', function () {
  it('finds each instruction and each RET of a function, through prefixes, ModRM, SIB, immediates and VEX', function () {
    const code = hex(`
      55                          push rbp
      48 89 e5                    mov rbp, rsp
      48 89 1c 24                 mov [rsp], rbx (SIB, no displacement)
      4c 8b 64 24 08              mov r12, [rsp+8] (SIB, disp8)
      48 8b 04 25 10 00 00 00     mov rax, [0x10] (SIB without base: disp32)
      48 8b 05 00 01 00 00        mov rax, [rip+0x100]
      48 b8 01 02 03 04 05 06 07 08  movabs rax, imm64
      66 c7 40 02 34 12           mov word [rax+2], imm16
      f7 c1 00 00 00 80           test ecx, imm32 (F7 /0)
      f7 d8                       neg eax (F7 /3: no immediate)
      66 0f 1f 44 00 00           nop word [rax+rax]
      0f 84 03 00 00 00           je +3 (rel32)
      c5 f8 77                    vzeroupper (VEX, no ModRM)
      c4 e2 79 18 05 00 00 00 00  vbroadcastss xmm0, [rip] (VEX, map 0F38)
      c4 e3 79 0f c1 08           vpalignr (VEX map 0F3A: imm8)
      c3                          ret
      e8 00 00 00 00              call +0
      c2 08 00                    ret 8
    `);
    const decoded = decodeFunction(code);
    assert.deepEqual(decoded.starts, [0, 1, 4, 8, 13, 21, 28, 38, 44, 50, 52, 58, 64, 67, 76, 82, 83, 88]);
    assert.deepEqual(decoded.returns, [82, 88]);
  });

  it('throws, naming the offset, for what it does not know, a function cut short, and a branch into an instruction', function () {
    const failure = (code: string): string => {
      try {
        decodeFunction(hex(code));
      } catch (error) {
        assert.ok(error instanceof UndecodableInstruction);
        return error.message;
      }
      assert.fail(`${code} decoded`);
    };
    assert.equal(
      failure('90 62 f1 7c 48 10 00'),
      'cannot decode the instruction at +0x1: opcode 0x62 is not known here',
    );
    assert.equal(
      failure('90 0f 0f c1 90'),
      'cannot decode the instruction at +0x1: opcode 0x0f 0xf is not known here',
    );
    assert.equal(
      failure('90 48 8b 05 00 01'),
      'cannot decode the instruction at +0x1: cut short by the end of the function',
    );
    assert.equal(
      failure('eb 01 48 89 e5 c3'),
      'cannot decode the instruction at +0x0: its branch lands inside an instruction, at +0x3',
    );
    assert.equal(
      failure('66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 90'),
      'cannot decode the instruction at +0x0: longer than 15 bytes',
    );
  });

  const toolchains = supportedGoVersions
    .filter(hasFetchedGo)
    .map((version) => ({ version, go: fetchedGo(version) }));
  const system = systemGo();
  if (toolchains.length === 0 && system !== undefined) toolchains.push({ version: 'the system', go: system });
  for (const { version, go } of toolchains)
    it(`agrees with objdump on every function it decodes of a binary built by Go ${version}, crypto/tls among them`, async function () {
      if (!hasObjdump()) {
        process.stderr.write('      skipped: objdump (binutils) is not installed\n');
        this.skip();
      }
      this.timeout(300_000);
      const work = mkdtempSync(join(tmpdir(), 'provd-x86-'));
      try {
        const binary = join(work, 'client');
        await buildGo(go, goTlsClientSource, binary, work);
        await compareWithObjdump(binary);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    });
  if (toolchains.length === 0)
    it('agrees with objdump on the functions of a Go binary', function () {
      process.stderr.write('      skipped: no Go toolchain (.ci/setup --for-tests installs one as root)\n');
      this.skip();
    });
});
