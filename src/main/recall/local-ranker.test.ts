import { describe, expect, it } from 'vitest';
import { LocalRanker, fileNameWords } from './local-ranker.js';
import { FIXTURE_MEMORIES } from './test-support/memory-fixture.js';

function ranker(): LocalRanker {
  const r = new LocalRanker();
  r.addAll(FIXTURE_MEMORIES);
  return r;
}

describe('LocalRanker', () => {
  it('finds English and Chinese memories from paraphrased queries', () => {
    const r = ranker();
    expect(r.search('can I use an ORM for queries?')[0]?.file).toBe('feedback_no_orm.md');
    expect(r.search('双十一之前能上线新功能吗')[0]?.file).toBe('project_release_freeze.md');
    expect(r.search('which python versions are in CI')[0]?.file).toBe('project_ci_python.md');
  });

  it('crosses languages through the synonym table', () => {
    const r = ranker();
    // English query, Chinese memory: integration test ↔ 集成测试, database ↔ 数据库.
    expect(r.search('integration tests against a real database').map((h) => h.file)).toContain('feedback_tests_real_db.md');
    // Chinese query, English memory: 看板 ↔ dashboard, 延迟 ↔ latency.
    expect(r.search('延迟看板在哪')[0]?.file).toBe('reference_grafana.md');
  });

  it('returns at most 5, and nothing for a query without words', () => {
    const r = ranker();
    expect(r.search('the user team project memory notes test database latency 中文 值班 CI').length).toBeLessThanOrEqual(5);
    expect(r.search('')).toEqual([]);
    expect(r.search('?? !!')).toEqual([]);
  });

  it('updates one memory at a time: add, change, remove', () => {
    const r = ranker();
    expect(r.search('kafka consumer lag')).toEqual([]);
    r.upsert({ file: 'project_kafka.md', name: 'Kafka lag', description: 'Consumer lag alerts fire above 10k messages', type: 'project' });
    expect(r.search('kafka consumer lag')[0]?.file).toBe('project_kafka.md');
    r.upsert({ file: 'project_kafka.md', name: 'Queue', description: 'RabbitMQ replaced the old broker', type: 'project' });
    expect(r.search('consumer lag').map((h) => h.file)).not.toContain('project_kafka.md');
    expect(r.search('rabbitmq')[0]?.file).toBe('project_kafka.md');
    r.remove('project_kafka.md');
    expect(r.search('rabbitmq')).toEqual([]);
    expect(r.size).toBe(FIXTURE_MEMORIES.length);
  });

  it('sync touches only what changed', () => {
    const r = ranker();
    const changed = FIXTURE_MEMORIES.filter((m) => m.file !== 'user_role.md').map((m) =>
      m.file === 'feedback_no_orm.md' ? { ...m, description: 'Use Drizzle now' } : m,
    );
    expect(r.sync([...changed, { file: 'reference_new.md', name: 'New', description: 'A new link', type: 'reference' }])).toEqual({
      added: 1,
      updated: 1,
      removed: 1,
    });
    expect(r.sync([...changed, { file: 'reference_new.md', name: 'New', description: 'A new link', type: 'reference' }])).toEqual({
      added: 0,
      updated: 0,
      removed: 0,
    });
    expect(r.search('drizzle')[0]?.file).toBe('feedback_no_orm.md');
  });

  it('matches a memory with an empty description by its name and file name', () => {
    expect(ranker().search('misc notes')[0]?.file).toBe('project_misc.md');
    expect(fileNameWords('feedback_noOrm-rules.md')).toBe('no Orm rules');
  });

  it('explains why a memory was or was not selected', () => {
    const r = ranker();
    const hit = r.explain('python versions in CI', 'project_ci_python.md');
    expect(hit).toMatchObject({ inIndex: true, rank: 1, selected: true });
    expect(hit.matchedTerms).toEqual(expect.arrayContaining(['python', 'version']));
    const miss = r.explain('python versions in CI', 'user_role.md');
    expect(miss.rank).toBeNull();
    expect(miss.missingTerms).toEqual(expect.arrayContaining(['python']));
    expect(miss.summary).toMatch(/shares no words/);
    expect(r.explain('x', 'nope.md').inIndex).toBe(false);
  });
});
