import { describe, expect, it } from 'vitest';
import { postgresAvailability } from './postgres.js';

describe('PostgreSQL test gate', () => {
  const absent = { PATH: '', MEMDIR_PG_BINDIR: '/nonexistent/bin' };

  it('skips with a one-line reason when PostgreSQL is not installed', () => {
    const gate = postgresAvailability(absent, '/nonexistent');
    expect(gate).toMatchObject({ available: false, mustFail: false });
    expect(!gate.available && gate.reason).toMatch(/^PostgreSQL binaries not found, PostgreSQL store tests skipped \(install the Debian package `postgresql`/);
    expect(!gate.available && gate.reason).not.toContain('\n');
  });

  it('fails under CI=true, saying how to install it', () => {
    const gate = postgresAvailability({ ...absent, CI: 'true' }, '/nonexistent');
    expect(gate).toMatchObject({ available: false, mustFail: true });
    expect(!gate.available && gate.reason).toContain('apt-get install -y postgresql');
  });
});
