import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEffectiveSettings } from '../memdir/settings.js';
import { SettingsFileError } from './claude-settings-file.js';
import { readAutoDreamSetting, writeAutoDreamSetting } from './auto-dream-setting.js';

let home: string;
const file = () => path.join(home, 'settings.json');
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-auto-dream-'));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe('the autoDreamEnabled switch', () => {
  it('writes only that value, and the settings reader reads it back', async () => {
    const text = '{\n  "model": "opus",\n  "permissions": {"allow": ["Read"]}\n}\n';
    await fs.writeFile(file(), text);
    expect(await readAutoDreamSetting(home, {})).toMatchObject({ value: null, problems: [], warnings: [] });

    const on = await writeAutoDreamSetting(home, true, {});
    expect(on).toMatchObject({ value: true, inForce: true, changed: true, backup: `${file()}.memdir-backup` });
    expect(await fs.readFile(file(), 'utf8')).toBe('{\n  "model": "opus",\n  "permissions": {"allow": ["Read"]},\n  "autoDreamEnabled": true\n}\n');
    expect(await fs.readFile(`${file()}.memdir-backup`, 'utf8')).toBe(text);

    const off = await writeAutoDreamSetting(home, false, {});
    expect(off).toMatchObject({ value: false, inForce: false, changed: true });
    expect(await fs.readFile(file(), 'utf8')).toBe('{\n  "model": "opus",\n  "permissions": {"allow": ["Read"]},\n  "autoDreamEnabled": false\n}\n');
    expect((await readEffectiveSettings(home, null, {})).autoDreamEnabled).toBe(false);
    expect(await writeAutoDreamSetting(home, false, {})).toMatchObject({ changed: false, backup: null });
  });

  it('creates settings.json when there is none', async () => {
    expect(await writeAutoDreamSetting(home, true, {})).toMatchObject({ value: true, backup: null });
    expect(await fs.readFile(file(), 'utf8')).toBe('{\n  "autoDreamEnabled": true\n}\n');
  });

  it('edits a file with comments byte for byte, and warns that Claude Code ignores it', async () => {
    await fs.writeFile(file(), '{\n  // mine\n  "autoDreamEnabled": false, // for now\n}\n');
    const result = await writeAutoDreamSetting(home, true, {});
    expect(await fs.readFile(file(), 'utf8')).toBe('{\n  // mine\n  "autoDreamEnabled": true, // for now\n}\n');
    expect(result).toMatchObject({ value: true, warnings: [expect.stringContaining('ignores this whole file')] });
  });

  it('never writes a file it cannot read', async () => {
    await fs.writeFile(file(), '{"model": ');
    await expect(writeAutoDreamSetting(home, true, {})).rejects.toBeInstanceOf(SettingsFileError);
    expect(await fs.readFile(file(), 'utf8')).toBe('{"model": ');
    expect((await readAutoDreamSetting(home, {})).problems).toEqual([expect.stringContaining('not valid JSON (line 1, column 11)')]);
  });
});
