/**
 * Where the x86-64 instructions of a compiled function start, and which of them return. A Go
 * function's return is probed at each of its RET instructions (a uretprobe would rewrite a return
 * address on a stack that Go's runtime moves), and a uprobe must sit on an instruction's first
 * byte: one placed inside an instruction corrupts the program. So this decodes every instruction's
 * length from the function's first byte, and throws, naming the offset, at anything it does not
 * know: the caller then attaches nothing.
 *
 * It knows the one-byte, 0F, 0F38 and 0F3A opcode maps with their legacy and REX prefixes, and VEX:
 * what compilers emit for 64-bit code (Go's: GOAMD64 v1 to v4 for compiled code). EVEX, 3DNow!,
 * MOV to or from control and debug registers, and opcodes invalid in 64-bit mode throw.
 */

export class UndecodableInstruction extends Error {
  constructor(
    readonly offset: number,
    why: string,
  ) {
    super(`cannot decode the instruction at +0x${offset.toString(16)}: ${why}`);
  }
}

export interface DecodedFunction {
  /** Offset of each instruction's first byte (its prefixes included), in order. */
  starts: number[];
  /** Offset of each return (RET, RET imm16): where a return probe goes. */
  returns: number[];
}

/*
 * What follows an opcode, one character per opcode, 16 to a row:
 *   n nothing             m ModRM               b 8-bit immediate     z 16/32-bit immediate (66)
 *   M ModRM + imm8        Z ModRM + imm16/32    w 16-bit immediate    e ENTER (imm16 + imm8)
 *   o 64/32-bit offset (67)                     v 16/32/64-bit immediate (66, REX.W: MOV r, imm)
 *   J 32-bit displacement g F6: ModRM, imm8 if /0 or /1             G F7: ModRM, imm16/32 if /0 or /1
 *   p a prefix            V VEX                 2 0F escape           3 0F38 escape    4 0F3A escape
 *   x throws: invalid in 64-bit mode, or not known here
 */
const oneByte = [
  'mmmmbzxxmmmmbzx2', // 00
  'mmmmbzxxmmmmbzxx', // 10
  'mmmmbzpxmmmmbzpx', // 20: 26, 2E segment prefixes
  'mmmmbzpxmmmmbzpx', // 30: 36, 3E segment prefixes
  'pppppppppppppppp', // 40: REX
  'nnnnnnnnnnnnnnnn', // 50: PUSH, POP
  'xxxmppppzZbMnnnn', // 60: 62 is EVEX; 64-67 prefixes
  'bbbbbbbbbbbbbbbb', // 70: Jcc rel8
  'MZxMmmmmmmmmmmmm', // 80
  'nnnnnnnnnnxnnnnn', // 90
  'oooonnnnbznnnnnn', // A0
  'bbbbbbbbvvvvvvvv', // B0
  'MMwnVVMZenwnnbxn', // C0: C3 RET, C4 and C5 VEX
  'mmmmxxxnmmmmmmmm', // D0: D8-DF x87
  'bbbbbbbbJJxbnnnn', // E0
  'pnppnngGnnnnnnmm', // F0: F0 LOCK, F2 and F3 prefixes
].join('');

const twoByte = [
  'mmmmxnnnnnxnxmxx', // 0F 00: 0F 0F is 3DNow!
  'mmmmmmmmmmmmmmmm', // 0F 10
  'xxxxxxxxmmmmmmmm', // 0F 20: MOV CR/DR take any ModRM as a register
  'nnnnnnxn3x4xxxxx', // 0F 30: 0F 38 and 0F 3A escapes
  'mmmmmmmmmmmmmmmm', // 0F 40: CMOVcc
  'mmmmmmmmmmmmmmmm', // 0F 50
  'mmmmmmmmmmmmmmmm', // 0F 60
  'MMMMmmmnmmxxmmmm', // 0F 70
  'JJJJJJJJJJJJJJJJ', // 0F 80: Jcc rel32
  'mmmmmmmmmmmmmmmm', // 0F 90: SETcc
  'nnnmMmxxnnnmMmmm', // 0F A0
  'mmmmmmmmmmMmmmmm', // 0F B0
  'mmMmMMMmnnnnnnnn', // 0F C0: C8-CF BSWAP
  'mmmmmmmmmmmmmmmm', // 0F D0
  'mmmmmmmmmmmmmmmm', // 0F E0
  'mmmmmmmmmmmmmmmm', // 0F F0
].join('');

/** The longest an instruction may be: the CPU refuses a longer one. */
const maxLength = 15;

/** Decodes `code`, a function's bytes from its first instruction to its end. */
export function decodeFunction(code: Uint8Array): DecodedFunction {
  const starts: number[] = [];
  const returns: number[] = [];
  const jumps: { from: number; to: number }[] = [];
  for (let at = 0; at < code.length;) {
    const { length, returns: isReturn, target } = decodeInstruction(code, at);
    starts.push(at);
    if (isReturn) returns.push(at);
    if (target !== null) jumps.push({ from: at, to: target });
    at += length;
  }
  // a check on the decoding: a branch within the function lands on an instruction's first byte
  const known = new Set(starts);
  for (const { from, to } of jumps)
    if (to >= 0 && to < code.length && !known.has(to))
      throw new UndecodableInstruction(
        from,
        `its branch lands inside an instruction, at +0x${to.toString(16)}`,
      );
  return { starts, returns };
}

/** The target of a relative branch that ends at `end` with a displacement of `bytes` bytes. */
function branchTarget(code: Uint8Array, end: number, bytes: 1 | 4): number {
  const view = new DataView(code.buffer, code.byteOffset + end - bytes, bytes);
  return end + (bytes === 1 ? view.getInt8(0) : view.getInt32(0, true));
}

/** The length of the instruction at `start`, and whether it is a return. */
function decodeInstruction(
  code: Uint8Array,
  start: number,
): { length: number; returns: boolean; target: number | null } {
  let at = start;
  const next = (): number => {
    if (at >= code.length) throw new UndecodableInstruction(start, 'cut short by the end of the function');
    if (at - start >= maxLength) throw new UndecodableInstruction(start, `longer than ${maxLength} bytes`);
    return code[at++]!;
  };
  const skip = (bytes: number): void => {
    if (at + bytes > code.length)
      throw new UndecodableInstruction(start, 'cut short by the end of the function');
    at += bytes;
  };

  let operand16 = false;
  let address32 = false;
  let rexW = false;
  let opcode = next();
  for (;;) {
    const kind = oneByte[opcode];
    if (kind !== 'p') break;
    if ((opcode & 0xf0) === 0x40) rexW = (opcode & 8) !== 0;
    else rexW = false; // a REX counts only right before the opcode
    if (opcode === 0x66) operand16 = true;
    if (opcode === 0x67) address32 = true;
    opcode = next();
  }

  const modrm = (): number => {
    const byte = next();
    const mod = byte >> 6;
    const rm = byte & 7;
    if (mod === 3) return byte;
    if (rm === 4) {
      const sib = next();
      if (mod === 0 && (sib & 7) === 5) skip(4); // no base: disp32
    } else if (mod === 0 && rm === 5) skip(4); // RIP-relative
    if (mod === 1) skip(1);
    if (mod === 2) skip(4);
    return byte;
  };
  const immediateZ = (): void => skip(operand16 ? 2 : 4);

  const kind = oneByte[opcode]!;
  let second: number | null = null;
  switch (kind) {
    case 'n':
      break;
    case 'm':
      modrm();
      break;
    case 'b':
      skip(1);
      break;
    case 'z':
      immediateZ();
      break;
    case 'M':
      modrm();
      skip(1);
      break;
    case 'Z':
      modrm();
      immediateZ();
      break;
    case 'w':
      skip(2);
      break;
    case 'e':
      skip(3);
      break;
    case 'o':
      skip(address32 ? 4 : 8);
      break;
    case 'v':
      skip(rexW ? 8 : operand16 ? 2 : 4);
      break;
    case 'J':
      skip(4);
      break;
    case 'g':
    case 'G':
      if (((modrm() >> 3) & 7) < 2) {
        if (kind === 'g') skip(1);
        else immediateZ();
      }
      break;
    case '2':
      second = next();
      twoByteOperands(second, modrm, skip, start);
      break;
    case 'V':
      vexOperands(opcode, next, modrm, skip, start);
      break;
    default:
      throw new UndecodableInstruction(start, `opcode 0x${opcode.toString(16)} is not known here`);
  }
  return {
    length: at - start,
    returns: opcode === 0xc3 || opcode === 0xc2,
    target: branch(code, at, opcode, second),
  };
}

/**
 * Where a relative jump or call goes (Jcc, JMP, CALL, LOOP, JRCXZ), `opcode` being the one-byte
 * map's and `second` the 0F map's; null for any other instruction.
 */
function branch(code: Uint8Array, end: number, opcode: number, second: number | null): number | null {
  if ((opcode >= 0x70 && opcode <= 0x7f) || (opcode >= 0xe0 && opcode <= 0xe3) || opcode === 0xeb)
    return branchTarget(code, end, 1);
  if (opcode === 0xe8 || opcode === 0xe9) return branchTarget(code, end, 4);
  if (second !== null && second >= 0x80 && second <= 0x8f) return branchTarget(code, end, 4);
  return null;
}

function twoByteOperands(
  opcode: number,
  modrm: () => number,
  skip: (bytes: number) => void,
  start: number,
): void {
  const kind = twoByte[opcode]!;
  switch (kind) {
    case 'n':
      return;
    case 'm':
    case '3': // 0F 38 xx: ModRM
      if (kind === '3') skip(1);
      modrm();
      return;
    case 'M':
    case '4': // 0F 3A xx: ModRM + imm8
      if (kind === '4') skip(1);
      modrm();
      skip(1);
      return;
    case 'J':
      skip(4);
      return;
    default:
      throw new UndecodableInstruction(start, `opcode 0x0f 0x${opcode.toString(16)} is not known here`);
  }
}

/** VEX (C4: three bytes, C5: two), its opcode, ModRM and any imm8. */
function vexOperands(
  escape: number,
  next: () => number,
  modrm: () => number,
  skip: (bytes: number) => void,
  start: number,
): void {
  let map = 1;
  if (escape === 0xc4) {
    map = next() & 0x1f;
    next();
  } else next();
  const opcode = next();
  if (map < 1 || map > 3) throw new UndecodableInstruction(start, `VEX opcode map ${map} is not known here`);
  if (map === 1 && opcode === 0x77) return; // VZEROUPPER, VZEROALL: no ModRM
  modrm();
  const immediate8 =
    map === 3 ||
    (map === 1 &&
      ((opcode >= 0x70 && opcode <= 0x73) || opcode === 0xc2 || (opcode >= 0xc4 && opcode <= 0xc6)));
  if (immediate8) skip(1);
}
