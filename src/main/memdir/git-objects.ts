/**
 * Read commits of a git repository from its files, never by running git (issue 18: a project's
 * root commit is part of its identity, and finding a project never runs git — R-KEY). Loose
 * objects (`objects/xx/…`, zlib) and pack files (`objects/pack/*.idx` version 2 + `*.pack`,
 * with offset and reference deltas), in the repository and its `objects/info/alternates`; SHA-1
 * and SHA-256 repositories. Every read is bounded: object size, delta depth, files looked at.
 * Pack files are read at offsets (they may be gigabytes), never whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** A commit larger than this is not a commit anyone wrote by hand: not read. */
const MAX_OBJECT_BYTES = 8 * 1024 * 1024;
const MAX_DELTA_DEPTH = 64;
const MAX_PACKS = 256;
const MAX_ALTERNATES = 4;
/** A pack index up to this size is read whole (about 2.4 million objects). */
const MAX_IDX_IN_MEMORY = 64 * 1024 * 1024;
/** The first read of a packed object: its header and, for most commits, all of it. */
const FIRST_READ_BYTES = 4096;

type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';
const PACK_TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };

interface Pack {
  /** The whole index when it is small enough to hold (look-ups then cost no system call), else null: read at offsets. */
  idx: Buffer | null;
  idxFd: number;
  packFd: number;
  packSize: number;
  count: number;
  fanout: Uint32Array;
  /** Byte offset of the first name, of the offsets table and of the 64-bit offsets table in the idx. */
  namesAt: number;
  offsetsAt: number;
  largeAt: number;
}

/** An object read: its type and content. */
export interface GitObject {
  type: ObjectType;
  data: Buffer;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? buf : buf.subarray(0, done);
}

/** Reads objects from one repository's object store; `close` releases its files. */
export class GitObjectReader {
  private readonly hashBytes: number;
  private readonly oidPattern: RegExp;
  private packs: Pack[] | null = null;
  private readonly dirs: string[];
  private readonly opened: number[] = [];

  /** `objectsDir`: `<git dir>/objects`; `hashBytes`: 20 (SHA-1) or 32 (SHA-256). */
  constructor(objectsDir: string, hashBytes = 20) {
    this.hashBytes = hashBytes;
    this.oidPattern = new RegExp(`^[0-9a-f]{${hashBytes * 2}}$`);
    this.dirs = [objectsDir, ...readAlternates(objectsDir)];
  }

  /** The object `oid` (hex), or null when it is not in the store or cannot be read. */
  read(oid: string): GitObject | null {
    if (!this.oidPattern.test(oid)) return null;
    // Packs first: most of a history is packed, and a look-up in memory costs less than a failed stat.
    const name = Buffer.from(oid, 'hex');
    for (const pack of this.listPacks()) {
      const offset = this.findInPack(pack, name);
      if (offset !== null) return this.readPacked(pack, offset, 0);
    }
    for (const dir of this.dirs) {
      const loose = readLoose(path.join(dir, oid.slice(0, 2), oid.slice(2)));
      if (loose) return loose;
    }
    return null;
  }

  close(): void {
    for (const fd of this.opened) {
      try {
        fs.closeSync(fd);
      } catch {
        // Already closed.
      }
    }
    this.opened.length = 0;
    this.packs = null;
  }

  private listPacks(): Pack[] {
    if (this.packs) return this.packs;
    this.packs = [];
    for (const dir of this.dirs) {
      const packDir = path.join(dir, 'pack');
      let names: string[];
      try {
        names = fs
          .readdirSync(packDir)
          .filter((n) => n.endsWith('.idx'))
          .sort();
      } catch {
        continue;
      }
      for (const name of names) {
        if (this.packs.length >= MAX_PACKS) break;
        const pack = this.openPack(path.join(packDir, name));
        if (pack) this.packs.push(pack);
      }
    }
    return this.packs;
  }

  private openPack(idxPath: string): Pack | null {
    let idxFd: number | null = null;
    let packFd: number | null = null;
    try {
      idxFd = fs.openSync(idxPath, 'r');
      packFd = fs.openSync(`${idxPath.slice(0, -'.idx'.length)}.pack`, 'r');
      const head = readAt(idxFd, 0, 8 + 256 * 4);
      // Version 2 only: `\377tOc`, version 2 (version 1 has had no writer since git 1.5.2).
      if (head.length < 8 + 1024 || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) throw new Error('not a version 2 pack index');
      const fanout = new Uint32Array(256);
      for (let i = 0; i < 256; i++) fanout[i] = head.readUInt32BE(8 + i * 4);
      const count = fanout[255]!;
      const namesAt = 8 + 1024;
      const offsetsAt = namesAt + count * this.hashBytes + count * 4;
      const idxSize = fs.fstatSync(idxFd).size;
      const idx = idxSize <= MAX_IDX_IN_MEMORY ? readAt(idxFd, 0, idxSize) : null;
      const pack: Pack = { idx, idxFd, packFd, packSize: fs.fstatSync(packFd).size, count, fanout, namesAt, offsetsAt, largeAt: offsetsAt + count * 4 };
      this.opened.push(idxFd, packFd);
      return pack;
    } catch {
      if (idxFd !== null) fs.closeSync(idxFd);
      if (packFd !== null) fs.closeSync(packFd);
      return null;
    }
  }

  /** Binary search of the idx's sorted names, read a name at a time. */
  private findInPack(pack: Pack, name: Buffer): number | null {
    const first = name[0]!;
    let lo = first === 0 ? 0 : pack.fanout[first - 1]!;
    let hi = pack.fanout[first]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = pack.namesAt + mid * this.hashBytes;
      const order = pack.idx
        ? pack.idx.compare(name, 0, this.hashBytes, at, at + this.hashBytes)
        : Buffer.compare(readAt(pack.idxFd, at, this.hashBytes), name);
      if (order === 0) return this.offsetOf(pack, mid);
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return null;
  }

  private offsetOf(pack: Pack, index: number): number {
    const read = (at: number, n: number) => (pack.idx ? pack.idx.subarray(at, at + n) : readAt(pack.idxFd, at, n));
    const small = read(pack.offsetsAt + index * 4, 4).readUInt32BE(0);
    if ((small & 0x80000000) === 0) return small;
    return Number(read(pack.largeAt + (small & 0x7fffffff) * 8, 8).readBigUInt64BE(0));
  }

  private readPacked(pack: Pack, offset: number, depth: number): GitObject | null {
    if (depth > MAX_DELTA_DEPTH || offset < 12 || offset >= pack.packSize) return null;
    // One read holds the header and, for a commit, usually the whole compressed object.
    let chunk = readAt(pack.packFd, offset, Math.min(FIRST_READ_BYTES, pack.packSize - offset));
    let i = 0;
    let byte = chunk[i++]!;
    const typeCode = (byte >> 4) & 7;
    let size = byte & 15;
    for (let shift = 4; byte & 0x80; shift += 7) {
      if (i >= chunk.length || shift > 35) return null;
      byte = chunk[i++]!;
      size += (byte & 0x7f) * 2 ** shift;
    }
    if (size > MAX_OBJECT_BYTES) return null;
    let base: GitObject | null = null;
    if (typeCode === 6) {
      // OFS_DELTA: a big-endian base-128 distance back, each continuation adding one.
      byte = chunk[i++]!;
      let back = byte & 0x7f;
      while (byte & 0x80) {
        if (i >= chunk.length) return null;
        byte = chunk[i++]!;
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      base = this.readPacked(pack, offset - back, depth + 1);
      if (!base) return null;
    } else if (typeCode === 7) {
      const baseOid = chunk.subarray(i, i + this.hashBytes).toString('hex');
      i += this.hashBytes;
      base = depth + 1 > MAX_DELTA_DEPTH ? null : this.read(baseOid);
      if (!base) return null;
    }
    // Deflate adds at most a few bytes per 16 KiB block, plus the zlib header and checksum.
    const room = size + Math.ceil(size / 1000) + 64;
    if (i + room > chunk.length && offset + chunk.length < pack.packSize) chunk = readAt(pack.packFd, offset, Math.min(pack.packSize - offset, i + room));
    const data = inflate(chunk.subarray(i), size);
    if (!data) return null;
    if (base) {
      const applied = applyDelta(base.data, data);
      return applied ? { type: base.type, data: applied } : null;
    }
    const type = PACK_TYPES[typeCode];
    return type ? { type, data } : null;
  }
}

/** Inflate a zlib stream whose output is `size` bytes; data after the stream is ignored. */
function inflate(compressed: Buffer, size: number): Buffer | null {
  try {
    const out = zlib.inflateSync(compressed, { maxOutputLength: Math.max(size, 1) });
    return out.length === size ? out : null;
  } catch {
    return null;
  }
}

function readLoose(file: string): GitObject | null {
  let compressed: Buffer;
  try {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile() || st.size > MAX_OBJECT_BYTES) return null;
    compressed = fs.readFileSync(file);
  } catch {
    return null;
  }
  try {
    const raw = zlib.inflateSync(compressed, { maxOutputLength: MAX_OBJECT_BYTES + 64 });
    const nul = raw.indexOf(0);
    const header = raw.subarray(0, nul).toString('latin1');
    const match = /^(commit|tree|blob|tag) (\d+)$/.exec(header);
    if (!match || Number(match[2]) !== raw.length - nul - 1) return null;
    return { type: match[1] as ObjectType, data: raw.subarray(nul + 1) };
  } catch {
    return null;
  }
}

function readVarint(buf: Buffer, at: { i: number }): number {
  let value = 0;
  let shift = 0;
  let byte: number;
  do {
    if (at.i >= buf.length || shift > 35) return -1;
    byte = buf[at.i++]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return value;
}

/** Git's delta format: base size, result size, then copy (from the base) and insert instructions. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer | null {
  const at = { i: 0 };
  if (readVarint(delta, at) !== base.length) return null;
  const size = readVarint(delta, at);
  if (size < 0 || size > MAX_OBJECT_BYTES) return null;
  const out = Buffer.alloc(size);
  let o = 0;
  while (at.i < delta.length) {
    const op = delta[at.i++]!;
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let b = 0; b < 4; b++) if (op & (1 << b)) offset += delta[at.i++]! * 2 ** (8 * b);
      for (let b = 0; b < 3; b++) if (op & (0x10 << b)) length += delta[at.i++]! * 2 ** (8 * b);
      if (length === 0) length = 0x10000;
      if (offset + length > base.length || o + length > size) return null;
      base.copy(out, o, offset, offset + length);
      o += length;
    } else if (op > 0) {
      if (at.i + op > delta.length || o + op > size) return null;
      delta.copy(out, o, at.i, at.i + op);
      at.i += op;
      o += op;
    } else {
      return null;
    }
  }
  return o === size ? out : null;
}

function readAlternates(objectsDir: string): string[] {
  try {
    const text = fs.readFileSync(path.join(objectsDir, 'info', 'alternates'), 'utf8');
    return text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
      .slice(0, MAX_ALTERNATES)
      .map((l) => path.resolve(objectsDir, l));
  } catch {
    return [];
  }
}

/** The parents of a commit's text (`parent <oid>` header lines). */
export function commitParents(data: Buffer): string[] {
  const parents: string[] = [];
  const end = data.indexOf('\n\n');
  const header = data.subarray(0, end === -1 ? data.length : end).toString('latin1');
  for (const line of header.split('\n')) if (line.startsWith('parent ')) parents.push(line.slice(7).trim());
  return parents;
}
