import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { layouts } from '../../src/sensor/records.js';

const buildDir = fileURLToPath(new URL('../../../bpf/build/', import.meta.url));

interface BtfStruct {
  kind: string;
  name: string;
  size: number;
  members: { name: string; bits_offset: number }[];
}

/** Every named struct of every built BPF object's BTF, as bpftool reads it (the last object's wins). */
function readBtfStructs(): Map<string, BtfStruct> {
  const structs = new Map<string, BtfStruct>();
  for (const object of readdirSync(buildDir).filter((name) => name.endsWith('.bpf.o'))) {
    const dump = JSON.parse(
      execFileSync('bpftool', ['-j', 'btf', 'dump', 'file', buildDir + object], { encoding: 'utf8' }),
    ) as { types: BtfStruct[] };
    for (const type of dump.types)
      if (type.kind === 'STRUCT' && type.name in layouts) structs.set(type.name, type);
  }
  return structs;
}

describe('sensor record layout (bpf/lib/event.h against src/sensor/records.ts)', function () {
  before(function () {
    if (existsSync(buildDir) && readdirSync(buildDir).some((name) => name.endsWith('.bpf.o'))) return;
    process.stderr.write(
      `      skipped: ${buildDir} holds no BPF object (.ci/setup builds them where clang and bpftool are installed)\n`,
    );
    this.skip();
  });

  it('finds every struct records.ts reads in the objects BTF, with the same size and field offsets', function () {
    const structs = readBtfStructs();
    for (const [name, layout] of Object.entries(layouts)) {
      const struct = structs.get(name);
      assert.ok(struct, `struct ${name} is in no object's BTF`);
      const offsets = Object.fromEntries(
        struct.members.map((member) => [member.name, member.bits_offset / 8]),
      );
      assert.deepEqual({ size: struct.size, fields: offsets }, layout, `struct ${name}`);
    }
  });
});
