import { describe, expect, it } from 'vitest';
import { stemEnglish, tokenSpans, tokenize } from './tokenize.js';

describe('tokenize', () => {
  it('splits Chinese into words with Intl.Segmenter and drops function words', () => {
    const terms = tokenize('部署前先跑集成测试');
    expect(terms).toEqual(expect.arrayContaining(['部署', '集成', '测试']));
    expect(tokenize('日志里可以打印用户的邮箱吗')).not.toContain('的');
  });

  it('splits Japanese and mixed text', () => {
    expect(tokenize('デプロイの前にテストを実行する')).toEqual(expect.arrayContaining(['デプロイ', 'テスト', '実行']));
    expect(tokenize('CI 上 flaky test 的历史')).toEqual(expect.arrayContaining(['ci', 'flaky', 'test', '历史']));
  });

  it('adds CJK character pairs when asked, without doubling segmenter words', () => {
    const terms = tokenize('数据库迁移', { cjkBigrams: true });
    expect(terms).toEqual(expect.arrayContaining(['数据', '据库', '迁移']));
    expect(terms.filter((t) => t === '数据')).toHaveLength(1);
  });

  it('folds case, full-width forms, plurals and -ing/-ed', () => {
    expect(tokenize('Ｄatabases')).toEqual(['databas']);
    expect(tokenize('deploys deploying deployed')).toEqual(['deploy', 'deploy', 'deploy']);
    expect(['policies', 'boxes', 'caching', 'cache', 'stopped', 'running', 'status', 'analysis'].map(stemEnglish)).toEqual([
      'policy',
      'box',
      'cach',
      'cach',
      'stop',
      'run',
      'status',
      'analysis',
    ]);
  });

  it('never throws on odd input', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('🙂 --- !!!')).toEqual([]);
    expect(tokenize('x'.repeat(10_000))).toHaveLength(1);
  });
});

describe('tokenSpans', () => {
  it('gives the same terms as tokenize, each at the words the user wrote', () => {
    for (const text of [
      'Deploys happen on Tuesdays',
      '部署前先跑集成测试',
      'CI 上 flaky test 的历史',
      'Ｄatabases ﬁle café',
      'デプロイの前にテストを実行する',
    ]) {
      expect(
        tokenSpans(text).map((s) => s.term),
        text,
      ).toEqual(tokenize(text));
    }
    const text = 'Deploys happen on Tuesdays; 部署前先跑测试';
    expect(tokenSpans(text).map((s) => `${s.term}=${text.slice(s.start, s.end)}`)).toEqual(
      expect.arrayContaining(['deploy=Deploys', 'happen=happen', 'tuesday=Tuesdays', '部署=部署', '测试=测试']),
    );
  });
});

describe('CJK n-grams and English morphology of the ranker', () => {
  it('adds lone Han characters when asked, so a paraphrase meets the memory on a shared character', () => {
    expect(tokenize('幫我推到 GitHub', { cjkUnigrams: true })).toEqual(expect.arrayContaining(['推']));
    expect(tokenize('不自動推', { cjkUnigrams: true })).toEqual(expect.arrayContaining(['推']));
    expect(tokenize('デプロイ', { cjkUnigrams: true })).toEqual(['デプロイ']);
  });

  it('folds -ly and -ness onto the word they come from', () => {
    expect(['locally', 'quickly', 'easily', 'slowness', 'happiness', 'apply', 'only'].map(stemEnglish)).toEqual([
      'local',
      'quick',
      'easy',
      'slow',
      'happy',
      'apply',
      'only',
    ]);
  });
});
