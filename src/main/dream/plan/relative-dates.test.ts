import { describe, expect, it } from 'vitest';
import { absolutizeDates, findRelativeDates } from './relative-dates.js';

// Midday, so the local date is the same in every time zone a CI machine may use.
const FRIDAY = new Date('2026-03-06T12:00:00Z');
const at = (text: string, anchor = FRIDAY) => absolutizeDates(text, () => anchor).text;

describe('relative dates', () => {
  it('turns English day phrases into dates anchored where the text was written', () => {
    expect(at('The deploy broke yesterday; retry tomorrow.')).toBe('The deploy broke 2026-03-05; retry 2026-03-07.');
    // chrono-node: "next Friday" is the Friday of next week.
    expect(at('Freeze starts next Friday')).toBe('Freeze starts 2026-03-13');
    expect(at('It failed the day before yesterday and 3 days ago')).toBe('It failed 2026-03-04 and 2026-03-03');
    expect(at('Demo tomorrow at 3pm')).toBe('Demo 2026-03-07 15:00');
    // The same words written a week later mean other days.
    expect(at('broke yesterday', new Date('2026-03-13T12:00:00Z'))).toBe('broke 2026-03-12');
  });

  it('turns Chinese phrases into dates: 昨天, 下周五, 三天后, 本周五', () => {
    expect(at('昨天部署失败了，下周五发布。')).toBe('2026-03-05部署失败了，2026-03-13发布。');
    expect(at('三天后上线，两周后复盘')).toBe('2026-03-09上线，2026-03-20复盘');
    expect(at('本周五冻结')).toBe('2026-03-06冻结');
  });

  it('writes weeks, months and years as periods, never as a made-up day', () => {
    expect(at('last week we decided to drop the ORM')).toBe('the week of 2026-02-23 we decided to drop the ORM');
    expect(at('Next month the API changes')).toBe('April 2026 the API changes');
    expect(at('上个月决定不用 ORM；明年再评估')).toBe('2026年2月决定不用 ORM；2027年再评估');
  });

  it('leaves recurring weekdays, dates without a year, code, URLs and converted phrases alone', () => {
    for (const text of [
      'We release every Friday',
      '每周五发布',
      'by Monday',
      'On March 5 we met',
      'run `deploy --since yesterday`',
      'see https://x.example/yesterday',
      'broke yesterday (2026-03-05)',
      '```\ntomorrow()\n```',
    ]) {
      expect(findRelativeDates(text), text).toEqual([]);
      expect(at(text)).toBe(text);
    }
  });

  it('is idempotent: a second pass changes nothing', () => {
    const once = at('昨天 and yesterday, next Friday and 下周五, last week and 上个月');
    expect(at(once, new Date('2027-01-01T12:00:00Z'))).toBe(once);
  });

  it('anchors each phrase at its own sentence', () => {
    const anchors: string[] = [];
    const out = absolutizeDates('Broke yesterday. 明天发布。', (phrase, sentence) => {
      anchors.push(`${phrase.text}|${sentence}`);
      return phrase.lang === 'zh' ? new Date('2026-04-01T12:00:00Z') : FRIDAY;
    });
    expect(anchors).toEqual(['yesterday|Broke yesterday', '明天|明天发布']);
    expect(out.text).toBe('Broke 2026-03-05. 2026-04-02发布。');
    expect(out.resolved.map((r) => r.date)).toEqual(['2026-03-05', '2026-04-02']);
  });
});
