import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { goMinor, readElfFacts } from '../../src/sensor/elf-file.js';
import { useTempDir } from '../support/temp-dir.js';

const openSsl = ['SSL_write', 'SSL_read', 'SSL_write_ex', 'SSL_read_ex'];
const libssl = '/usr/lib/x86_64-linux-gnu/libssl.so.3';

/** A minimal ELF64 file with a .go.buildinfo section holding `info`. */
function goElf(info: Buffer): Buffer {
  const names = Buffer.from('\0.shstrtab\0.go.buildinfo\0', 'latin1');
  const file = Buffer.alloc(64 + 32 + 64 + 3 * 64);
  file.write('\x7fELF', 0, 'latin1');
  file[4] = 2; // 64-bit
  file[5] = 1; // little-endian
  file[6] = 1;
  file.writeBigUInt64LE(160n, 40); // e_shoff
  file.writeUInt16LE(64, 58); // e_shentsize
  file.writeUInt16LE(3, 60); // e_shnum
  file.writeUInt16LE(1, 62); // e_shstrndx
  names.copy(file, 64);
  info.copy(file, 96);
  const section = (index: number, name: number, offset: number, size: number): void => {
    const at = 160 + index * 64;
    file.writeUInt32LE(name, at);
    file.writeUInt32LE(1, at + 4); // SHT_PROGBITS (the string table's type does not matter here)
    file.writeBigUInt64LE(BigInt(offset), at + 24);
    file.writeBigUInt64LE(BigInt(size), at + 32);
  };
  section(1, 1, 64, names.length);
  section(2, 11, 96, info.length);
  return file;
}

/** The start of .go.buildinfo: its magic, pointer size 8, `flags`, then (Go 1.18+) the version at 32. */
function buildInfo(flags: number, version: string): Buffer {
  const info = Buffer.alloc(64);
  info.write('\xff Go buildinf:', 0, 'latin1');
  info[14] = 8;
  info[15] = flags;
  info[32] = version.length;
  info.write(version, 33, 'latin1');
  return info;
}

/**
 * A minimal ELF64 file with code at file offset 0x200 (.text, at address 0x401000) and a .symtab of
 * `symbols`: each a function at `address` of `size` bytes, naming section `shndx`.
 */
function codeElf(symbols: { name: string; address: number; size: number; shndx: number }[]): Buffer {
  const sectionNames = Buffer.from('\0.shstrtab\0.text\0.tbss\0.strtab\0.symtab\0', 'latin1');
  const strings = Buffer.from(`\0${symbols.map((symbol) => `${symbol.name}\0`).join('')}`, 'latin1');
  const table = Buffer.alloc(24 * (symbols.length + 1));
  let name = 1;
  symbols.forEach((symbol, index) => {
    const at = 24 * (index + 1);
    table.writeUInt32LE(name, at);
    table[at + 4] = 0x12; // STB_GLOBAL, STT_FUNC
    table.writeUInt16LE(symbol.shndx, at + 6);
    table.writeBigUInt64LE(BigInt(symbol.address), at + 8);
    table.writeBigUInt64LE(BigInt(symbol.size), at + 16);
    name += symbol.name.length + 1;
  });
  const file = Buffer.alloc(0x1000);
  file.write('\x7fELF', 0, 'latin1');
  file[4] = 2;
  file[5] = 1;
  file[6] = 1;
  file.writeBigUInt64LE(0x800n, 40); // e_shoff
  file.writeUInt16LE(64, 58);
  file.writeUInt16LE(6, 60);
  file.writeUInt16LE(1, 62);
  sectionNames.copy(file, 0x40);
  strings.copy(file, 0x400);
  table.copy(file, 0x600);
  const section = (index: number, fields: number[]): void => {
    const [nameAt, type, flags, address, offset, size, link, entsize] = fields as [number, ...number[]];
    const at = 0x800 + index * 64;
    file.writeUInt32LE(nameAt, at);
    file.writeUInt32LE(type!, at + 4);
    file.writeBigUInt64LE(BigInt(flags!), at + 8);
    file.writeBigUInt64LE(BigInt(address!), at + 16);
    file.writeBigUInt64LE(BigInt(offset!), at + 24);
    file.writeBigUInt64LE(BigInt(size!), at + 32);
    file.writeUInt32LE(link!, at + 40);
    file.writeBigUInt64LE(BigInt(entsize!), at + 56);
  };
  section(1, [1, 3, 0, 0, 0x40, sectionNames.length, 0, 0]); // .shstrtab
  section(2, [11, 1, 6, 0x401000, 0x200, 0x100, 0, 0]); // .text: SHF_ALLOC | SHF_EXECINSTR
  section(3, [17, 8, 0x403, 0, 0, 8, 0, 0]); // .tbss, at address 0
  section(4, [23, 3, 0, 0, 0x400, strings.length, 0, 0]); // .strtab
  section(5, [31, 2, 0, 0, 0x600, table.length, 4, 24]); // .symtab
  return file;
}

describe('readElfFacts (what TLS target discovery reads of a file)', function () {
  const work = useTempDir('provd-elf-', { per: 'suite' });

  it('finds the OpenSSL functions libssl exports, in its dynamic symbols', async function () {
    if (!existsSync(libssl)) {
      process.stderr.write(`      skipped: ${libssl} is not installed\n`);
      this.skip();
    }
    const facts = await readElfFacts(libssl, [...openSsl, 'SSL_no_such_function']);
    assert.deepEqual([...facts.symbols.keys()].sort(), [...openSsl].sort());
    assert.equal(facts.goVersion, null);
  });

  it('finds them in node, which links OpenSSL statically, and none in a binary without TLS', async function () {
    const node = await readElfFacts(process.execPath, openSsl);
    assert.deepEqual([...node.symbols.keys()].sort(), [...openSsl].sort());
    assert.deepEqual([...(await readElfFacts('/bin/true', openSsl)).symbols.keys()], []);
  });

  it('reads the Go version a Go binary was built with, inline (Go 1.18+) or not', async function () {
    writeFileSync(join(work.path, 'go-new'), goElf(buildInfo(2, 'go1.24.1')));
    writeFileSync(join(work.path, 'go-old'), goElf(buildInfo(0, '')));
    const modern = await readElfFacts(join(work.path, 'go-new'), ['crypto/tls.(*Conn).Write']);
    assert.deepEqual(
      [modern.goVersion, modern.hasSymtab, [...modern.symbols.keys()]],
      ['go1.24.1', false, []],
    );
    assert.equal((await readElfFacts(join(work.path, 'go-old'), [])).goVersion, 'go1.17-or-older');
  });

  it('places a function by its address in the code, not by the section its symbol names (which a linker can get wrong)', async function () {
    writeFileSync(
      join(work.path, 'code'),
      codeElf([
        { name: 'right', address: 0x401010, size: 0x20, shndx: 2 },
        { name: 'wrong_index', address: 0x401040, size: 0x10, shndx: 3 }, // names .tbss, as Go 1.26 does
        { name: 'outside', address: 0x402000, size: 0x10, shndx: 2 }, // in no code section
        { name: 'overruns', address: 0x4010f8, size: 0x10, shndx: 2 }, // past the end of .text
      ]),
    );
    const facts = await readElfFacts(join(work.path, 'code'), [
      'right',
      'wrong_index',
      'outside',
      'overruns',
    ]);
    assert.deepEqual(Object.fromEntries(facts.symbols), {
      right: { offset: 0x210, size: 0x20 },
      wrong_index: { offset: 0x240, size: 0x10 },
    });
    assert.equal(facts.hasSymtab, true);
  });

  it('refuses a file that is not ELF, is empty, or is cut short, naming it', async function () {
    const cases: [string, Buffer, RegExp][] = [
      [
        'text',
        Buffer.from('#!/bin/sh\necho not elf, but long enough to hold a header of sixty-four bytes\n'),
        /is not an ELF file/,
      ],
      ['empty', Buffer.alloc(0), /is cut short/],
      ['cut', goElf(buildInfo(2, 'go1.24.1')).subarray(0, 100), /is cut short/],
      [
        '32-bit',
        Buffer.concat([Buffer.from('\x7fELF\x01\x01\x01', 'latin1'), Buffer.alloc(60)]),
        /is not a 64-bit little-endian ELF file/,
      ],
    ];
    for (const [name, bytes, message] of cases) {
      const path = join(work.path, name);
      writeFileSync(path, bytes);
      await assert.rejects(readElfFacts(path, openSsl), (error: Error) => {
        assert.match(error.message, message, name);
        assert.ok(error.message.includes(path), `the message names ${path}`);
        return true;
      });
    }
  });

  it('refuses a file whose headers claim more than it reads, rather than allocate what they say', async function () {
    const huge = goElf(buildInfo(2, 'go1.24.1'));
    huge.writeBigUInt64LE(1n << 40n, 160 + 2 * 64 + 32); // .go.buildinfo claims a terabyte
    writeFileSync(join(work.path, 'huge-section'), huge);
    // the version is read from the section's first bytes only: a lying size costs nothing
    assert.equal((await readElfFacts(join(work.path, 'huge-section'), [])).goVersion, 'go1.24.1');
    const names = goElf(buildInfo(2, 'go1.24.1'));
    names.writeBigUInt64LE(1n << 40n, 160 + 64 + 32); // the section names claim a terabyte
    writeFileSync(join(work.path, 'huge-names'), names);
    await assert.rejects(
      readElfFacts(join(work.path, 'huge-names'), []),
      /a section of 1099511627776 bytes is not read/,
    );
  });

  it('reads the minor version of a Go toolchain, and nothing of what is not one', function () {
    const cases: [string, number | null][] = [
      ['go1.19.8', 19],
      ['go1.23rc1', 23],
      ['go1.26', 26],
      ['go1.17-or-older', 17],
      ['devel go1.24-abc', null],
      ['go2.0', null],
    ];
    for (const [version, minor] of cases) assert.equal(goMinor(version), minor, version);
  });
});
