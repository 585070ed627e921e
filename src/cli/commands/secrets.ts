import fs from 'node:fs/promises';
import path from 'node:path';
import { type CommandSpec, CliFailure, EXIT_OK, EXIT_PROBLEMS, jsonOption, printJson } from '../command.js';
import { plural } from '../format.js';
import { type ScanReport, scanDir, scanFile } from '../../main/secrets/scanner.js';

/** A path as the user will recognise it: relative to where they ran the command when inside it. */
function shown(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

export const secretsScanCommand: CommandSpec = {
  name: ['secrets', 'scan'],
  summary: 'Scan a memory file, or every *.md under a folder, for credentials (API keys, tokens, private keys, passwords).',
  args: ['<path>'],
  options: { json: jsonOption },
  details: `The same scan runs before every team upload: a file with a finding is not uploaded.
Matches are masked (a few leading characters, then *); the secret itself is never printed.
Symbolic links are not followed; folders starting with a dot (.git) are not entered.
A finding can be silenced in the file itself with <!-- secretlint-disable-line -->.
JSON: {"findings": [{"file", "line", "column", "rule", "title", "match", "severity", "fingerprint"}],
  "skipped": [{"file", "reason"}], "files"}
Exit codes: 0 nothing found, 1 findings, 2 the path could not be scanned.`,
  async run({ positionals, values, io }) {
    const target = path.resolve(io.cwd, positionals[0]!);
    const stat = await fs.stat(target).catch(() => null);
    if (!stat) throw new CliFailure(`${positionals[0]} does not exist`);
    const report: ScanReport = stat.isDirectory() ? await scanDir(target) : await scanFile(target);
    if (!stat.isDirectory() && report.files === 0) throw new CliFailure(`cannot scan ${positionals[0]}: ${report.skipped[0]?.reason ?? 'unknown reason'}`);
    const findings = report.findings.map((f) => ({
      file: shown(f.file, io.cwd),
      line: f.line,
      column: f.column,
      rule: f.rule,
      title: f.title,
      match: f.match,
      severity: f.severity,
      fingerprint: f.fingerprint,
    }));
    const skipped = report.skipped.map((s) => ({ file: shown(s.file, io.cwd), reason: s.reason }));
    if (values.json) {
      printJson(io, { findings, skipped, files: report.files });
    } else {
      for (const f of findings) io.out(`${f.file}:${f.line}:${f.column}  ${f.severity === 'error' ? 'error' : 'warn '}  ${f.title}  ${f.match}  (${f.rule})\n`);
      for (const s of skipped) io.out(`${s.file}  skipped: ${s.reason}\n`);
      io.out(
        findings.length === 0
          ? `No secrets found in ${plural(report.files, 'file')}.\n`
          : `\n${plural(findings.length, 'finding')} in ${plural(new Set(findings.map((f) => f.file)).size, 'file')} of ${report.files} scanned. Remove or redact them before sharing.\n`,
      );
    }
    return findings.length > 0 ? EXIT_PROBLEMS : EXIT_OK;
  },
};
