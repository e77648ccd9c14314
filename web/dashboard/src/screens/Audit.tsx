import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { ok } from '../api/client.ts';
import { AUDIT_CATEGORIES as CATEGORIES } from '../api/types.ts';
import { useApp } from '../context.tsx';
import { Empty, ErrorState, Field, label, Loading, Page, Pager, usePager } from '../ui/index.tsx';
import { AuditTrail } from './AuditTrail.tsx';

export default function Audit() {
  const { api } = useApp();
  const [params, setParams] = useSearchParams();
  const category = CATEGORIES.find((c) => c === params.get('category'));
  const pager = usePager(category ?? '');
  const list = useQuery({
    queryKey: ['audit', category, pager.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/admin/audit', {
          params: { query: { ...(category ? { category } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) } },
        }),
      ),
  });
  return (
    <Page title="Audit">
      <p className="lead">
        Every change to tickets, intents, help articles, integrations, settings and membership, newest first.
      </p>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <Field label="Category">
          {(p) => (
            <select
              {...p}
              value={category ?? ''}
              onChange={(e) => setParams(e.target.value ? { category: e.target.value } : {})}
            >
              <option value="">All</option>
              {CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {label(c)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>No entry.</Empty>
      ) : (
        <div className="card">
          <AuditTrail entries={list.data.items} withTarget />
          <Pager pager={pager} nextCursor={list.data.nextCursor} label="Audit" />
        </div>
      )}
    </Page>
  );
}
