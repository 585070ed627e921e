import { describe, expect, it } from 'vitest';
import { findRememberStatements, suggestionOperation } from './remember-statements.js';

const texts = (prompt: string) => findRememberStatements(prompt).map((s) => s.text);

describe('findRememberStatements', () => {
  it('finds explicit English instructions to keep something', () => {
    expect(texts('Remember that staging resets every Monday.')).toEqual(['Remember that staging resets every Monday.']);
    expect(texts('Fix the test. Always run the linter before committing!')).toEqual(['Always run the linter before committing!']);
    expect(texts("please don't add new dependencies without asking")).toEqual(["please don't add new dependencies without asking"]);
    expect(texts('Never push to main directly.\nFrom now on, use pnpm.')).toEqual(['Never push to main directly.', 'From now on, use pnpm.']);
    expect(texts('Also, do not mock the database in integration tests.')).toEqual(['Also, do not mock the database in integration tests.']);
  });

  it('finds Chinese ones: 记住, 以后, 别, 不要', () => {
    expect(texts('记住我们的部署窗口是周四。')).toEqual(['记住我们的部署窗口是周四。']);
    expect(texts('以后提交前先跑 lint。别用 ORM。不要改 CI 配置')).toEqual(['以后提交前先跑 lint。', '别用 ORM。', '不要改 CI 配置']);
    expect(texts('请不要在测试里 mock 数据库')).toEqual(['请不要在测试里 mock 数据库']);
  });

  it('leaves out words used in passing, questions, code and quotes', () => {
    expect(texts("I don't know why this fails.")).toEqual([]);
    expect(texts('改完以后跑一下测试。')).toEqual([]);
    expect(texts("Don't you think this is slow?")).toEqual([]);
    expect(texts('Do you remember the flag we used')).toEqual([]);
    expect(texts('你还记得吗')).toEqual([]);
    expect(texts('```\n// always inline this\nremember();\n```\nWhat does it print')).toEqual([]);
    expect(texts('> Never do X, said the docs\nok')).toEqual([]);
    expect(texts('Run `git commit --no-verify` always')).toEqual([]);
  });

  it('tells statements about the user from feedback, and does not repeat a sentence', () => {
    expect(findRememberStatements("Remember: I'm the on-call lead this month.")[0]!.type).toBe('user');
    expect(findRememberStatements('Remember to squash merge.')[0]!.type).toBe('feedback');
    expect(findRememberStatements('记住我是后端负责人。')[0]!.type).toBe('user');
    expect(texts('Always squash. Always squash.')).toEqual(['Always squash.']);
  });
});

describe('suggestionOperation', () => {
  it('makes a private memory with the statement as its description and a free file name', () => {
    const [statement] = findRememberStatements('Always run the linter before committing.');
    const op = suggestionOperation(statement!, {
      sessionId: 's1',
      date: '2026-03-05',
      existingFiles: new Set(['feedback_always_run_the_linter_before_committing.md']),
    });
    expect(op).toMatchObject({
      action: 'create',
      scope: 'private',
      type: 'feedback',
      file: 'feedback_always_run_the_linter_before_committing_2.md',
      description: 'Always run the linter before committing.',
    });
    expect(op.body).toContain('2026-03-05');
    const [zh] = findRememberStatements('以后提交前先跑 lint。');
    expect(suggestionOperation(zh!, { sessionId: null, date: '2026-03-05', existingFiles: new Set() }).name).toBe('以后提交前先跑 lint');
  });
});
