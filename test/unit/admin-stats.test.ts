import { describe, expect, it } from 'vitest';
import { aggregate, resolvePeriod } from '#shared/domain/reports/stats.ts';

const now = new Date('2026-03-10T23:59:59.000Z');

describe('resolvePeriod', () => {
  it('defaults to today and the 29 days before (UTC)', () => {
    expect(resolvePeriod({}, now)).toEqual({ from: '2026-02-09', to: '2026-03-10' });
    expect(resolvePeriod({ to: '2026-01-30' }, now)).toEqual({ from: '2026-01-01', to: '2026-01-30' });
    expect(resolvePeriod({ from: '2026-03-01' }, now)).toEqual({ from: '2026-03-01', to: '2026-03-10' });
  });
  it('accepts 366 days and one day, refuses more or from after to', () => {
    expect(resolvePeriod({ from: '2024-01-01', to: '2024-12-31' }, now)).toEqual({
      from: '2024-01-01',
      to: '2024-12-31',
    });
    expect(resolvePeriod({ from: '2026-01-01', to: '2026-01-01' }, now)).toEqual({
      from: '2026-01-01',
      to: '2026-01-01',
    });
    expect(() => resolvePeriod({ from: '2025-01-01', to: '2026-01-02' }, now)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
    expect(() => resolvePeriod({ from: '2026-01-02', to: '2026-01-01' }, now)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});

describe('aggregate', () => {
  it('sums shards, divides safely and ranks intents without fallback', () => {
    const r = aggregate(
      [
        {
          day: '2026-11-20',
          counts: {
            conversations: 2,
            messages: 4,
            escalations: 1,
            fallbacks: 1,
            confidenceSum: 2.4,
            i_greeting: 2,
            i_order_status: 1,
            assistantResolutions: 1,
          },
        },
        {
          day: '2026-11-20',
          counts: { conversations: 1, messages: 2, fallbacks: 1, confidenceSum: 0.6, i_order_status: 2 },
        },
      ],
      -1,
      { from: '2026-11-20', to: '2026-11-20' },
    );
    expect(r.kpis).toEqual({
      conversations: 3,
      messages: 6,
      escalations: 1,
      escalationRate: 1 / 3,
      openTickets: 0,
      avgConfidence: 0.5,
      fallbackRate: 2 / 6,
      fallbacks: 2,
      knowledgeAnswers: 0,
      avgFirstResponseSeconds: null,
      avgResolutionSeconds: null,
      csat: null,
      ratings: 0,
      assistantResolutions: 1,
      assistantResolutionRate: 1 / 3,
    });
    expect(r.topIntents).toEqual([
      { intent: 'order_status', count: 3 },
      { intent: 'greeting', count: 2 },
    ]);
  });
  it('averages first responses, resolutions and ratings, and lists every day of the period oldest first', () => {
    const r = aggregate(
      [
        {
          day: '2026-11-21',
          counts: {
            firstResponses: 2,
            firstResponseSecondsSum: 90,
            resolutions: 1,
            resolutionSecondsSum: 3600,
            ratings: 2,
            ratingSum: 9,
          },
        },
        { day: '2026-11-19', counts: { conversations: 4, messages: 7, escalations: 1, fallbacks: 2 } },
        { day: '2026-11-19', counts: { conversations: 1, messages: 1 } },
      ],
      0,
      { from: '2026-11-19', to: '2026-11-21' },
    );
    expect(r.kpis).toMatchObject({ avgFirstResponseSeconds: 45, avgResolutionSeconds: 3600, csat: 4.5, ratings: 2 });
    expect(r.series).toEqual([
      { date: '2026-11-19', conversations: 5, messages: 8, escalations: 1, fallbacks: 2 },
      { date: '2026-11-20', conversations: 0, messages: 0, escalations: 0, fallbacks: 0 },
      { date: '2026-11-21', conversations: 0, messages: 0, escalations: 0, fallbacks: 0 },
    ]);
  });
  it('gives 0 rates and null confidence when nothing happened', () => {
    expect(aggregate([], 2, { from: '2026-11-20', to: '2026-11-20' }).kpis).toEqual({
      conversations: 0,
      messages: 0,
      escalations: 0,
      escalationRate: 0,
      openTickets: 2,
      avgConfidence: null,
      fallbackRate: 0,
      fallbacks: 0,
      knowledgeAnswers: 0,
      avgFirstResponseSeconds: null,
      avgResolutionSeconds: null,
      csat: null,
      ratings: 0,
      assistantResolutions: 0,
      assistantResolutionRate: 0,
    });
  });
  it('counts knowledge answers and ranks articles, named by their title on the last day they answered', () => {
    const r = aggregate(
      [
        {
          day: '2026-11-19',
          counts: { messages: 3, knowledgeAnswers: 3, a_art_A: 2, a_art_B: 1 },
          labels: { t_art_A: 'Old title', t_art_B: 'Bravo' },
        },
        {
          day: '2026-11-20',
          counts: { messages: 2, knowledgeAnswers: 1, fallbacks: 1, a_art_A: 1 },
          labels: { t_art_A: 'New title' },
        },
        { day: '2026-11-20', counts: { messages: 1, knowledgeAnswers: 1, a_art_C: 1 }, labels: { t_art_C: 'Alpha' } },
      ],
      0,
      { from: '2026-11-19', to: '2026-11-20' },
    );
    expect(r.kpis).toMatchObject({ messages: 6, knowledgeAnswers: 5, fallbacks: 1 });
    // Ties by title.
    expect(r.topArticles).toEqual([
      { articleId: 'art_A', title: 'New title', count: 3 },
      { articleId: 'art_C', title: 'Alpha', count: 1 },
      { articleId: 'art_B', title: 'Bravo', count: 1 },
    ]);
    expect(r.topIntents).toEqual([]);
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`a_art_${i}`, i + 1]));
    expect(
      aggregate([{ day: '2026-11-20', counts: many }], 0, { from: '2026-11-20', to: '2026-11-20' }).topArticles,
    ).toHaveLength(10);
  });
  it('keeps at most 10 intents', () => {
    const row = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`i_intent_${i}`, i + 1]));
    expect(
      aggregate([{ day: '2026-11-20', counts: row }], 0, { from: '2026-11-20', to: '2026-11-20' }).topIntents,
    ).toHaveLength(10);
  });
});
