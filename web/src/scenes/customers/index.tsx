import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { type Customer, type CustomerFields, api } from '../../api';
import { Field, FormActions, FormOutcome, PageTitle, QueryError, placeError } from '../../components';
import { formatNumber } from '../../format';
import { useUser } from '../../session';

const PAGE_SIZE = 50;
const ACTIVE_FILTERS = { true: 'Active', false: 'Inactive', all: 'All' } as const;
type ActiveFilter = keyof typeof ACTIVE_FILTERS;

/** The companies the shop prints for (ADMIN and POC): search, the active filter, add and edit; the CLIENT users of each. */
export function CustomersPage() {
  const user = useUser();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const active: ActiveFilter = (['true', 'false', 'all'] as const).find((a) => a === params.get('active')) ?? 'true';
  const [search, setSearch] = useState(q);
  const [open, setOpen] = useState<string | null>(null);

  const customers = useInfiniteQuery({
    queryKey: ['customers', { q, active }],
    queryFn: ({ pageParam }) => api.customers({ q, active, limit: PAGE_SIZE, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled: user.role !== 'CLIENT',
  });
  if (user.role === 'CLIENT') {
    return (
      <>
        <PageTitle>Customers</PageTitle>
        <p className="notice">Only the shop’s admins and points of contact keep the customer list.</p>
      </>
    );
  }
  const items = customers.data?.pages.flatMap((p) => p.items) ?? [];
  const setFilter = (next: { q?: string; active?: string }) => {
    const merged = { q, active: active === 'true' ? '' : active, ...next };
    setParams(Object.fromEntries(Object.entries(merged).filter(([k, v]) => v && !(k === 'active' && v === 'true'))), { replace: true });
  };

  return (
    <>
      <PageTitle>Customers</PageTitle>
      <CustomerForm />
      <form
        className="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ q: search.trim() });
        }}
      >
        <div className="field">
          <label htmlFor="customer-active">Show</label>
          <select id="customer-active" value={active} onChange={(e) => setFilter({ active: e.target.value })}>
            {Object.entries(ACTIVE_FILTERS).map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="customer-search">Name contains</label>
          <input id="customer-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="e.g. acme" />
        </div>
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      {!customers.data && <QueryError query={customers} what="The customers" />}
      {customers.isPending && <p className="muted">Loading customers…</p>}
      {customers.isSuccess && !items.length && <p className="empty">{q || active !== 'true' ? 'No customer matches these filters.' : 'No customers yet.'}</p>}
      {items.length > 0 && (
        <ul className="customer-list">
          {items.map((c) => (
            <li key={c.id} className="card" data-testid={`customer-${c.name}`}>
              <div className="customer-head">
                <div>
                  <h2 className="customer-name">{c.name}</h2>
                  <p className="muted small-text">
                    {[c.gstin && `GSTIN ${c.gstin}`, c.email, c.phone].filter(Boolean).join(' · ') || 'No details yet'}
                    {!c.active && (
                      <>
                        {' '}
                        <span className="badge">Inactive</span>
                      </>
                    )}
                  </p>
                </div>
                <div className="row-actions">
                  <Link href={`/projects?customerId=${encodeURIComponent(c.id)}`} className="button secondary small">
                    Projects<span className="visually-hidden"> of {c.name}</span>
                  </Link>
                  <button type="button" className="secondary small" aria-expanded={open === c.id} onClick={() => setOpen((o) => (o === c.id ? null : c.id))}>
                    Edit<span className="visually-hidden"> {c.name}</span>
                  </button>
                </div>
              </div>
              {open === c.id && <CustomerDetail customer={c} onDone={() => setOpen(null)} />}
            </li>
          ))}
        </ul>
      )}
      <div className="pager">
        {items.length > 0 && (
          <span className="muted" role="status">
            Showing {formatNumber(items.length)} {items.length === 1 ? 'customer' : 'customers'}
          </span>
        )}
        {customers.hasNextPage && (
          <button type="button" className="secondary" onClick={() => void customers.fetchNextPage()} disabled={customers.isFetchingNextPage}>
            Show more
          </button>
        )}
      </div>
    </>
  );
}

const EMPTY = { name: '', gstin: '', email: '', phone: '', billingAddress: '' };
type Values = typeof EMPTY;
const valuesOf = (c: Customer): Values => ({ name: c.name, gstin: c.gstin ?? '', email: c.email ?? '', phone: c.phone ?? '', billingAddress: c.billingAddress ?? '' });
/** The form's text as the API takes it: blank optional fields cleared (null). */
const bodyOf = (v: Values): CustomerFields => ({
  name: v.name,
  gstin: v.gstin.trim() || null,
  email: v.email.trim() || null,
  phone: v.phone.trim() || null,
  billingAddress: v.billingAddress.trim() || null,
});

function CustomerFieldsEditor({ values, set, errors }: { values: Values; set: (f: keyof Values) => (e: { target: { value: string } }) => void; errors: Record<string, string> }) {
  return (
    <>
      <Field label="Name" error={errors.name}>
        {(p) => <input {...p} value={values.name} onChange={set('name')} autoComplete="off" maxLength={200} />}
      </Field>
      <Field label="GSTIN (optional)" error={errors.gstin} hint="15 characters, e.g. 27AAPFU0939F1ZV">
        {(p) => <input {...p} value={values.gstin} onChange={set('gstin')} autoComplete="off" maxLength={15} className="mono" />}
      </Field>
      <Field label="Email (optional)" error={errors.email}>
        {(p) => <input {...p} type="email" value={values.email} onChange={set('email')} autoComplete="off" maxLength={254} />}
      </Field>
      <Field label="Phone (optional)" error={errors.phone}>
        {(p) => <input {...p} type="tel" value={values.phone} onChange={set('phone')} autoComplete="off" maxLength={40} />}
      </Field>
      <Field label="Billing address (optional)" error={errors.billingAddress}>
        {(p) => <textarea {...p} rows={2} value={values.billingAddress} onChange={set('billingAddress')} maxLength={1000} />}
      </Field>
    </>
  );
}

/** A duplicate name is the name's error; the rest by the field the message starts with. */
function customerErrors(error: unknown, values: Values) {
  if (error instanceof Error && /customer with this name already exists/i.test(error.message)) return { fields: { name: error.message }, form: null };
  return placeError(error, values);
}

function CustomerForm() {
  const queryClient = useQueryClient();
  const [values, setValues] = useState(EMPTY);
  const [added, setAdded] = useState<string | null>(null);
  const set = (f: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));
  const create = useMutation({
    mutationFn: () => api.createCustomer(bodyOf(values)),
    onMutate: () => setAdded(null),
    onSuccess: (c) => {
      setAdded(`${c.name} is added.`);
      setValues(EMPTY);
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
    },
  });
  const { fields, form } = customerErrors(create.error, values);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!create.isPending) create.mutate();
  };
  return (
    <section className="card" aria-labelledby="new-customer-title">
      <h2 id="new-customer-title">Add a customer</h2>
      <form onSubmit={submit} noValidate className="form-grid">
        <CustomerFieldsEditor values={values} set={set} errors={fields} />
        <FormActions label="Add customer" busyLabel="Adding…" pending={create.isPending} wide />
        <FormOutcome error={form} done={added} />
      </form>
    </section>
  );
}

/** Edit one customer (its `active` only for ADMINs), and the CLIENT users attached to it. */
function CustomerDetail({ customer: c, onDone }: { customer: Customer; onDone: () => void }) {
  const user = useUser();
  const queryClient = useQueryClient();
  const detail = useQuery({ queryKey: ['customer', c.id], queryFn: () => api.customer(c.id) });
  const [values, setValues] = useState(valuesOf(c));
  const [active, setActive] = useState(c.active);
  const set = (f: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));
  const save = useMutation({
    mutationFn: () => api.updateCustomer(c.id, { ...bodyOf(values), ...(user.role === 'ADMIN' && active !== c.active ? { active } : {}) }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
      void queryClient.invalidateQueries({ queryKey: ['customer', c.id] });
      onDone();
    },
  });
  const { fields, form } = customerErrors(save.error, values);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!save.isPending) save.mutate();
  };
  const clients = detail.data?.clients ?? [];
  return (
    <div className="customer-detail">
      <form onSubmit={submit} noValidate className="form-grid" aria-label={`Edit ${c.name}`}>
        <CustomerFieldsEditor values={values} set={set} errors={fields} />
        {user.role === 'ADMIN' && (
          <div className="field checkbox-field">
            <label>
              <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} /> Active (inactive customers are left out of the list and the project form)
            </label>
          </div>
        )}
        <FormActions label="Save" busyLabel="Saving…" pending={save.isPending} onCancel={onDone} wide />
        <FormOutcome error={form} />
      </form>
      <h3>Client users</h3>
      {!detail.data && <QueryError query={detail} what="The client users" />}
      {detail.data && !clients.length && (
        <p className="muted small-text">None yet.{user.role === 'ADMIN' ? ' Attach a client on the Team page.' : ''}</p>
      )}
      {clients.length > 0 && (
        <ul className="plain-list" data-testid="customer-clients">
          {clients.map((u) => (
            <li key={u.id}>
              {u.name} <span className="muted">({u.email})</span>
              {!u.active && <span className="muted"> · inactive</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
