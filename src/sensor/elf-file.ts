/**
 * Just enough of an ELF file for TLS target discovery: whether it defines the functions the TLS
 * probes attach to, whether it keeps its full symbol table, and, for a Go binary, the toolchain
 * version from its build info. Reads at offsets: a file is never read whole (node is ~100 MB).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';

export interface ElfFacts {
  /** Of the names asked for, the functions the file defines (in .symtab or .dynsym). */
  symbols: Map<string, ElfFunction>;
  /** It keeps .symtab (a stripped file keeps only .dynsym, if anything). */
  hasSymtab: boolean;
  /** The Go toolchain of a Go binary (`go1.19.8`), from .go.buildinfo; null for any other file. */
  goVersion: string | null;
}

/** Where a function's code is in the file. */
export interface ElfFunction {
  /** Its first byte's offset in the file. */
  offset: number;
  /** Its length in bytes, as its symbol says (0 when the symbol does not say). */
  size: number;
}

interface Section {
  name: number;
  type: number;
  flags: number;
  address: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

const shtProgbits = 1;
const shtSymtab = 2;
const shfExecinstr = 4;
const shtDynsym = 11;
const sttFunc = 2;
const symbolBytes = 24;
/**
 * Symbols read between two turns of the event loop: ~1-2 ms of the main thread, which answers the
 * agents' hooks (node's tables hold ~185,000).
 */
const symbolsPerTurn = 32_768;
/** A string or symbol table larger than this is not read (node's .strtab is ~7 MB). */
const maxTableBytes = 64 * 1024 * 1024;
const buildInfoMagic = Buffer.from('\xff Go buildinf:', 'latin1');

/** The facts of an ELF64 little-endian file; throws, naming the file, for anything else. */
export async function readElfFacts(path: string, names: readonly string[]): Promise<ElfFacts> {
  const file = await open(path, 'r');
  try {
    const header = await readAt(file, 0, 64, path);
    if (header.readUInt32BE(0) !== 0x7f454c46) throw new Error(`${path} is not an ELF file`);
    if (header[4] !== 2 || header[5] !== 1) throw new Error(`${path} is not a 64-bit little-endian ELF file`);
    const sections = await readSections(file, header, path);
    const sectionNames = await readTable(file, sections[header.readUInt16LE(62)], path);
    const sectionName = (section: Section): string => cString(sectionNames, section.name);
    const wanted = new Set(names);
    const symbols = new Map<string, ElfFunction>();
    const code = sections.filter(
      (section) => section.type === shtProgbits && (section.flags & shfExecinstr) !== 0,
    );
    for (const table of sections.filter(
      (section) => section.type === shtSymtab || section.type === shtDynsym,
    )) {
      const strings = sections[table.link];
      if (strings !== undefined) await findSymbols(file, code, table, strings, wanted, symbols, path);
    }
    const buildInfo = sections.find((section) => sectionName(section) === '.go.buildinfo');
    return {
      symbols,
      hasSymtab: sections.some((section) => section.type === shtSymtab),
      goVersion: buildInfo === undefined ? null : await readGoVersion(file, buildInfo, path),
    };
  } finally {
    await file.close();
  }
}

/** A function's code, as its symbol bounds it; refuses one without a size or past `maxBytes`. */
export async function readFunctionCode(path: string, code: ElfFunction, maxBytes: number): Promise<Buffer> {
  if (code.size === 0 || code.size > maxBytes)
    throw new Error(`${path}: a function of ${code.size} bytes is not read (at most ${maxBytes})`);
  const file = await open(path, 'r');
  try {
    return await readAt(file, code.offset, code.size, path);
  } finally {
    await file.close();
  }
}

/** 19 for `go1.19.8`, 23 for `go1.23rc1`; null for what is not a Go 1 version. */
export function goMinor(version: string): number | null {
  const minor = /^go1\.(\d+)/.exec(version);
  return minor === null ? null : Number(minor[1]);
}

async function readSections(file: FileHandle, header: Buffer, path: string): Promise<Section[]> {
  const offset = Number(header.readBigUInt64LE(40));
  const entry = header.readUInt16LE(58);
  const count = header.readUInt16LE(60);
  if (count === 0) return [];
  if (entry < 64) throw new Error(`${path}: section headers of ${entry} bytes`);
  if (entry * count > maxTableBytes) throw new Error(`${path}: ${count} section headers are not read`);
  const table = await readAt(file, offset, entry * count, path);
  return Array.from({ length: count }, (_, index) => {
    const at = index * entry;
    return {
      name: table.readUInt32LE(at),
      type: table.readUInt32LE(at + 4),
      flags: Number(table.readBigUInt64LE(at + 8)),
      address: Number(table.readBigUInt64LE(at + 16)),
      offset: Number(table.readBigUInt64LE(at + 24)),
      size: Number(table.readBigUInt64LE(at + 32)),
      link: table.readUInt32LE(at + 40),
      entsize: Number(table.readBigUInt64LE(at + 56)),
    };
  });
}

/**
 * Adds to `found` each function of `wanted` that `table` defines, with where its code is in the
 * file: found by its address in the code sections (`code`), not by the section index the symbol
 * names, which a linker can get wrong (Go 1.26 gives .dynsym's crosscall2 the index of .tbss). A
 * function whose code is not all inside one code section is left out.
 */
async function findSymbols(
  file: FileHandle,
  code: readonly Section[],
  table: Section,
  strings: Section,
  wanted: ReadonlySet<string>,
  found: Map<string, ElfFunction>,
  path: string,
): Promise<void> {
  if (table.entsize !== symbolBytes || table.size > maxTableBytes || strings.size > maxTableBytes)
    throw new Error(
      `${path}: a symbol table of ${table.size} bytes (entries of ${table.entsize}) is not read`,
    );
  const text = await readTable(file, strings, path);
  const symbols = await readTable(file, table, path);
  const mayBeWanted = prefixFilter(wanted);
  for (let at = 0; at + symbolBytes <= symbols.length; at += symbolBytes) {
    if (at % (symbolsPerTurn * symbolBytes) === 0 && at > 0) await setImmediate(); // hooks wait on this thread
    const defined = (symbols[at + 6]! | symbols[at + 7]!) !== 0; // st_shndx: SHN_UNDEF (0) is an import
    if (!defined || (symbols[at + 4]! & 0xf) !== sttFunc) continue;
    const nameAt = uint32At(symbols, at);
    if (!mayBeWanted(text, nameAt)) continue;
    const name = cString(text, nameAt);
    if (!wanted.has(name) || found.has(name)) continue;
    const address = Number(symbols.readBigUInt64LE(at + 8));
    const size = Number(symbols.readBigUInt64LE(at + 16));
    const section = code.find(
      (candidate) => address >= candidate.address && address + size <= candidate.address + candidate.size,
    );
    if (section !== undefined)
      found.set(name, { offset: section.offset + (address - section.address), size });
  }
}

/**
 * Whether the name at `at` of a string table may be one of `wanted`, told by its first 4 bytes
 * without decoding it: a large file's table holds ~100,000 function names (node's), nearly none
 * wanted, and decoding each was most of the main thread's ~100 ms for such a file. A wanted name
 * shorter than 4 bytes turns the filter off.
 */
function prefixFilter(wanted: ReadonlySet<string>): (text: Buffer, at: number) => boolean {
  const prefixes = new Set<number>();
  for (const name of wanted) {
    const bytes = Buffer.from(name, 'latin1');
    if (bytes.length < 4) return () => true;
    prefixes.add(bytes.readUInt32LE(0));
  }
  return (text, at) => at + 4 <= text.length && prefixes.has(uint32At(text, at));
}

/** The little-endian uint32 at `at` (in bounds), read as plain byte arithmetic: the symbol loop's hot read. */
function uint32At(bytes: Buffer, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)) + bytes[at + 3]! * 0x1000000;
}

/** The version string of .go.buildinfo: inline since Go 1.18 (flags bit 2), behind pointers before. */
async function readGoVersion(file: FileHandle, section: Section, path: string): Promise<string | null> {
  const wanted = Math.min(section.size, 64 + 1024); // the magic, then a version string at 32
  const info = Buffer.alloc(wanted);
  const { bytesRead } = await file.read(info, 0, wanted, section.offset);
  if (bytesRead < 33) throw new Error(`${path} is cut short: its .go.buildinfo is not all there`);
  if (!info.subarray(0, buildInfoMagic.length).equals(buildInfoMagic)) return null;
  if ((info[15]! & 2) === 0) return 'go1.17-or-older';
  let length = 0;
  let at = 32;
  for (let shift = 0; at < info.length; shift += 7) {
    const byte = info[at++]!;
    length |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
  }
  return info.subarray(at, at + length).toString('utf8');
}

/** A section's bytes (none for no section), refusing one past maxTableBytes: a file may lie. */
async function readTable(file: FileHandle, section: Section | undefined, path: string): Promise<Buffer> {
  if (section === undefined) return Buffer.alloc(0);
  if (section.size > maxTableBytes)
    throw new Error(`${path}: a section of ${section.size} bytes is not read`);
  return readAt(file, section.offset, section.size, path);
}

async function readAt(file: FileHandle, offset: number, length: number, path: string): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(length); // no zero-fill: each byte is read, or the read throws
  const { bytesRead } = await file.read(bytes, 0, length, offset);
  if (bytesRead < length)
    throw new Error(`${path} is cut short: ${length} bytes at ${offset} are not all there`);
  return bytes;
}

function cString(bytes: Buffer, at: number): string {
  const end = bytes.indexOf(0, at);
  return bytes.toString('latin1', at, end === -1 ? bytes.length : end);
}
