/**
 * A plain POSIX tar (ustar) of regular files, written and read in memory: the export archive
 * (issue 18, item 6) is meant to be opened by a person with `tar tf` / `tar xf`. The reader is
 * strict, because an archive comes from outside: every header's checksum and magic, regular
 * files and folders only (no links, devices or PAX tricks), names that stay inside, sizes and
 * counts bounded. Anything else is refused with a sentence.
 */
import { MemdirError } from '../../shared/errors.js';

const BLOCK = 512;
/** Bounds of an archive Memdir reads. */
export const TAR_LIMITS = { files: 50_000, bytes: 512 * 1024 * 1024, fileBytes: 64 * 1024 * 1024 };

/** A file in an archive. */
export interface TarEntry {
  name: string;
  data: Buffer;
}

/** An archive that cannot be read, with why. */
export class TarError extends MemdirError<'bad-archive'> {
  override readonly name = 'TarError';
  constructor(message: string) {
    super('bad-archive', message);
  }
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, type: '0' | '5', mtime: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    // ustar splits a long name at a slash: up to 155 bytes of folders, 100 of the rest.
    const cut = name.lastIndexOf('/', name.length - 1);
    for (let i = cut; i > 0; i = name.lastIndexOf('/', i - 1)) {
      if (Buffer.byteLength(name.slice(0, i)) <= 155 && Buffer.byteLength(name.slice(i + 1)) <= 100) {
        prefix = name.slice(0, i);
        base = name.slice(i + 1);
        break;
      }
    }
    if (prefix === '') throw new TarError(`"${name}" is too long a name for a tar archive.`);
  }
  h.write(base, 0, 100, 'utf8');
  h.write(octal(type === '5' ? 0o755 : 0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(type, 156, 'ascii');
  h.write('ustar\u000000', 257, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** A tar of `entries` (folders are added for every file's parents). */
export function writeTar(entries: readonly TarEntry[], mtime = Date.now()): Buffer {
  const parts: Buffer[] = [];
  const folders = new Set<string>();
  for (const entry of entries) {
    const segments = entry.name.split('/');
    for (let i = 1; i < segments.length; i++) {
      const folder = `${segments.slice(0, i).join('/')}/`;
      if (folders.has(folder)) continue;
      folders.add(folder);
      parts.push(header(folder, 0, '5', mtime));
    }
    parts.push(header(entry.name, entry.data.length, '0', mtime), entry.data);
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function field(h: Buffer, at: number, width: number): string {
  const raw = h.subarray(at, at + width);
  const nul = raw.indexOf(0);
  return (nul === -1 ? raw : raw.subarray(0, nul)).toString('utf8');
}

function readOctal(h: Buffer, at: number, width: number, what: string): number {
  const text = field(h, at, width).trim();
  if (!/^[0-7]{1,12}$/.test(text)) throw new TarError(`its ${what} field is not a number`);
  return Number.parseInt(text, 8);
}

/** The regular files of a tar (see the module comment). */
export function readTar(archive: Buffer): TarEntry[] {
  if (archive.length > TAR_LIMITS.bytes) throw new TarError(`it is larger than ${TAR_LIMITS.bytes / 1024 / 1024} MB`);
  if (archive.length < BLOCK * 2 || archive.length % BLOCK !== 0)
    throw new TarError('it is not a tar archive (its size is not a whole number of 512-byte blocks)');
  const entries: TarEntry[] = [];
  const names = new Set<string>();
  for (let at = 0; at + BLOCK <= archive.length; ) {
    const h = archive.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) return entries;
    if (field(h, 257, 6) !== 'ustar') throw new TarError('it is not a ustar tar archive');
    const stored = readOctal(h, 148, 8, 'checksum');
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== stored) throw new TarError(`a header at byte ${at} is damaged (bad checksum)`);
    const prefix = field(h, 345, 155);
    const name = prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100);
    const size = readOctal(h, 124, 12, 'size');
    const type = String.fromCharCode(h[156]!);
    at += BLOCK;
    if (type === '5') {
      at += Math.ceil(size / BLOCK) * BLOCK;
      continue;
    }
    if (type !== '0' && type !== '\0')
      throw new TarError(`"${name}" is not a regular file (tar type ${JSON.stringify(type)}); a Memdir export holds only files`);
    if (name === '' || name.startsWith('/') || name.includes('\\') || name.split('/').some((s) => s === '..' || s === '.') || /[\u0000-\u001f]/.test(name))
      throw new TarError(`"${name}" would be written outside the archive's folder`);
    if (names.has(name)) throw new TarError(`"${name}" is in it twice`);
    if (size > TAR_LIMITS.fileBytes) throw new TarError(`"${name}" is larger than ${TAR_LIMITS.fileBytes / 1024 / 1024} MB`);
    if (at + size > archive.length) throw new TarError(`"${name}" is cut short (the archive is truncated)`);
    if (entries.length >= TAR_LIMITS.files) throw new TarError(`it holds more than ${TAR_LIMITS.files} files`);
    names.add(name);
    entries.push({ name, data: Buffer.from(archive.subarray(at, at + size)) });
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new TarError('it ends without the end-of-archive blocks (truncated?)');
}
