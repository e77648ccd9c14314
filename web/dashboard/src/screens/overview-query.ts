import { ok, type Api } from '../api/client.ts';

// The overview's stats query, outside the Overview chunk so that the shell can start it while
// /auth/me is still on its way (the first screen after sign-in waits for both).

export const day = (d: Date) => d.toISOString().slice(0, 10);
export const daysAgo = (n: number) => day(new Date(Date.now() - n * 86_400_000));
export const DEFAULT_DAYS = 30;
export const defaultPeriod = () => ({ from: daysAgo(DEFAULT_DAYS - 1), to: daysAgo(0) });

export const statsQuery = (api: Api, period: { from: string; to: string }) => ({
  queryKey: ['stats', period.from, period.to],
  queryFn: () => ok(api.GET('/api/v1/admin/stats', { params: { query: period } })),
});
