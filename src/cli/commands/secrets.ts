import fs from 'node:fs/promises';
import path from 'node:path';
import { type CommandSpec, CliFailure, EXIT_OK, EXIT_PROBLEMS, jsonOption, printJson } from '../command.js';
import { plural } from '../format.js';
import { scanDir, scanFile, type ScanReport } from '../../main/secrets/index.js';
import { reportedFinding } from '../../shared/secret-types.js';

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
Every view a reader could decode is scanned: the text as written; with quote markers (> ) and
indentation stripped per line; JSON strings unescaped; URL-decoded (also nested); HTML character
references decoded (ghp&#95;...); full-width and other look-alike letters read as ASCII (NFKC);
invisible characters removed; comment markers removed; a token, a URL's password or a Slack
webhook wrapped onto the next line joined; base64 that decodes to text (a .env piped through
base64, a file name or link target like notes/Z2hw....md) decoded, a finding there masked as its
base64's length — and every file's path below <path>, so a token in a file or folder name is found too.
user:password@host with no scheme is found when the host has a dot or a port and the password
looks made (an e-mail address or a:b@c prose is not).
The secret itself is never printed, nor any character of it: a match is a * for each character
(past 32, the count), or a token format's public prefix and * (ghp_************); a file whose
name holds a secret is shown with that part of its path masked the same way.
Symbolic links are not followed; folders starting with a dot (.git) are not entered.
A finding in a file's text can be silenced in the file with <!-- secretlint-disable-line -->.
JSON: {"findings": [{"file", "where": "content"|"name", "line", "column", "rule", "title", "match",
  "severity", "fingerprint"}], "skipped": [{"file", "reason"}], "files"}
  "where" says whether the secret is in the file's text (at "line" and "column") or in its name
  (line and column null). "fingerprint" is a hash keyed by this install (the same secret, the same
  fingerprint on this machine only; it gives no password away), as --allow and Allow take it.
Exit codes: 0 nothing found, 1 findings, 2 the path could not be scanned.`,
  async run({ positionals, values, io }) {
    const target = path.resolve(io.cwd, positionals[0]!);
    const stat = await fs.stat(target).catch(() => null);
    if (!stat) throw new CliFailure(`${positionals[0]} does not exist`);
    const report: ScanReport = stat.isDirectory() ? await scanDir(target) : await scanFile(target);
    if (!stat.isDirectory() && report.files === 0)
      throw new CliFailure(`cannot scan ${shown(report.skipped[0]?.file ?? target, io.cwd)}: ${report.skipped[0]?.reason ?? 'unknown reason'}`);
    const findings = report.findings.map((f) => ({ file: shown(f.file, io.cwd), ...reportedFinding(f) }));
    const skipped = report.skipped.map((s) => ({ file: shown(s.file, io.cwd), reason: s.reason }));
    if (values.json) {
      printJson(io, { findings, skipped, files: report.files });
    } else {
      for (const f of findings) {
        const where = f.where === 'name' ? `${f.file} (in its name)` : `${f.file}:${f.line}:${f.column}`;
        io.out(`${where}  ${f.severity === 'error' ? 'error' : 'warn '}  ${f.title}  ${f.match}  (${f.rule})\n`);
      }
      for (const s of skipped) io.out(`${s.file}  skipped: ${s.reason}\n`);
      io.out(
        findings.length === 0
          ? `No secrets found in ${plural(report.files, 'file')}.\n`
          : `\n${plural(findings.length, 'finding')} in ${plural(new Set(findings.map((f) => f.file)).size, 'file')} of ${report.files} scanned. Remove or redact them (rename a file whose name holds one) before sharing.\n`,
      );
    }
    return findings.length > 0 ? EXIT_PROBLEMS : EXIT_OK;
  },
};
