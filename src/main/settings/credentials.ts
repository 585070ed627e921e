/**
 * Secrets Memdir keeps for itself (the Anthropic API key, later team sync tokens). One small
 * interface; the file implementation lives in the data dir with mode 0600. The Electron shell
 * passes a cipher built on `safeStorage`; without one (CLI, headless host, a Linux desktop
 * without a keyring) values are stored unencrypted, and `encrypted` says so for the UI to show.
 * Values never leave this module except through `get`: nothing here logs them.
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { changeDataFile } from '../memdir/index.js';
import { MemdirError } from '../../shared/errors.js';

/** The file name inside the data dir. */
export const CREDENTIALS_FILE = 'credentials.json';

/** Well-known credential names. */
export const CREDENTIAL_NAMES = { anthropicApiKey: 'anthropic-api-key' } as const;

/** Get, set and delete secrets by name. */
export interface CredentialStore {
  /** Whether values are encrypted at rest (false: "stored unencrypted" in the UI). */
  readonly encrypted: boolean;
  /** The value, or null when there is none or it cannot be decrypted here. */
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  /** Names with a value (never the values). */
  list(): Promise<string[]>;
}

/** What the Electron shell passes: `safeStorage.encryptString` / `decryptString`. */
export interface CredentialCipher {
  encrypt(text: string): Buffer;
  decrypt(data: Buffer): string;
}

/** A credential file that cannot be used, with a sentence a person understands. */
export class CredentialError extends MemdirError<'credentials-unusable'> {
  override readonly name = 'CredentialError';
  constructor(message: string) {
    super('credentials-unusable', message);
  }
}

const fileSchema = z.object({
  version: z.literal(1),
  encrypted: z.boolean(),
  /** name → value (plain text) or base64 of the cipher's output. */
  entries: z.record(z.string(), z.string()),
});
type CredentialFile = z.infer<typeof fileSchema>;

/** The file's contents from its text, or null when it is damaged (not JSON, or not its shape). */
function parseCredentialFile(text: string): CredentialFile | null {
  try {
    const parsed = fileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A file-system error while reading or writing the file, in words (a MemdirError already is). */
function inWords(file: string, error: unknown): unknown {
  if (error instanceof MemdirError || !(error as NodeJS.ErrnoException | null)?.code) return error;
  return new CredentialError(`The credential file ${file} cannot be read (${failureWords(error)}).`);
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function checkName(name: string): void {
  if (!NAME.test(name)) throw new CredentialError(`"${name}" is not a valid credential name (letters, digits, dot, dash, underscore).`);
}

/**
 * Credentials in `<dataDir>/credentials.json`, mode 0600, encrypted when a cipher is given.
 * The app and `memdir team`/`personal` in a terminal each have a store on the same file: a
 * change is applied to the file as it is at that moment, under the data dir's lock
 * (changeDataFile), so no store drops another's token.
 */
export class FileCredentialStore implements CredentialStore {
  readonly file: string;
  readonly encrypted: boolean;

  constructor(
    private readonly dataDir: string,
    private readonly cipher?: CredentialCipher,
  ) {
    this.file = path.join(dataDir, CREDENTIALS_FILE);
    this.encrypted = cipher !== undefined;
  }

  private async read(): Promise<CredentialFile> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, encrypted: this.encrypted, entries: {} };
      throw inWords(this.file, error);
    }
    const data = parseCredentialFile(text);
    if (!data) throw new CredentialError(`The credential file ${this.file} is damaged; set the credentials again to replace it.`);
    return data;
  }

  private decode(data: CredentialFile, value: string): string | null {
    if (!data.encrypted) return value;
    if (!this.cipher) return null;
    try {
      return this.cipher.decrypt(Buffer.from(value, 'base64'));
    } catch {
      return null;
    }
  }

  private encode(value: string): string {
    return this.cipher ? this.cipher.encrypt(value).toString('base64') : value;
  }

  async get(name: string): Promise<string | null> {
    checkName(name);
    const data = await this.read();
    const stored = data.entries[name];
    return stored === undefined ? null : this.decode(data, stored);
  }

  async list(): Promise<string[]> {
    const data = await this.read();
    return Object.keys(data.entries).sort();
  }

  private async mutate(change: (entries: Record<string, string>) => void): Promise<void> {
    const write = (data: CredentialFile | null): CredentialFile => {
      // A damaged file (data is null) holds nothing recoverable: start over rather than refuse every write.
      let entries: Record<string, string> = { ...data?.entries };
      if (data && data.encrypted !== this.encrypted) {
        // Switching between encrypted and plain storage: carry over what can be read.
        entries = {};
        for (const [key, value] of Object.entries(data.entries)) {
          const plain = this.decode(data, value);
          if (plain !== null) entries[key] = this.encode(plain);
        }
      }
      change(entries);
      return { version: 1, encrypted: this.encrypted, entries };
    };
    try {
      await changeDataFile(this.file, write, { dataDir: this.dataDir, parse: parseCredentialFile, mode: 0o600, damaged: 'replace' });
    } catch (error) {
      throw inWords(this.file, error);
    }
  }

  async set(name: string, value: string): Promise<void> {
    checkName(name);
    if (value.length === 0) throw new CredentialError('An empty value cannot be stored; delete the credential instead.');
    await this.mutate((entries) => {
      entries[name] = this.encode(value);
    });
  }

  async delete(name: string): Promise<void> {
    checkName(name);
    await this.mutate((entries) => {
      delete entries[name];
    });
  }
}

/** A store in memory, for callers that must not touch the disk (a one-off CLI run with a key in env). */
export class MemoryCredentialStore implements CredentialStore {
  readonly encrypted = false;
  private readonly values = new Map<string, string>();
  async get(name: string): Promise<string | null> {
    return this.values.get(name) ?? null;
  }
  async set(name: string, value: string): Promise<void> {
    checkName(name);
    this.values.set(name, value);
  }
  async delete(name: string): Promise<void> {
    this.values.delete(name);
  }
  async list(): Promise<string[]> {
    return [...this.values.keys()].sort();
  }
}
