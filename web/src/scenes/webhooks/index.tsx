import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Page, request } from '../../api';
import { ErrorMessage, Field, PageTitle, QueryError } from '../../components';
import { formatDateTime } from '../../format';
import { useUser } from '../../session';
import { WEBHOOK_EVENT_TYPES } from '../../../../src/domain/webhook-events';
import type { presentDelivery, presentWebhook, presentWebhookWithSecret } from '../../../../src/presenters/webhooks';

type Webhook = ReturnType<typeof presentWebhook>;
type WebhookWithSecret = ReturnType<typeof presentWebhookWithSecret>;
type Delivery = ReturnType<typeof presentDelivery>;

const hooksApi = {
  list: () => request<Webhook[]>('GET', '/api/webhooks'),
  create: (body: { url: string; events: string[]; description?: string }) => request<WebhookWithSecret>('POST', '/api/webhooks', body),
  update: (id: string, change: { active?: boolean; rotateSecret?: boolean }) => request<Webhook & { secret?: string }>('PATCH', `/api/webhooks/${encodeURIComponent(id)}`, change),
  remove: (id: string) => request<void>('DELETE', `/api/webhooks/${encodeURIComponent(id)}`),
  deliveries: (id: string) => request<Page<Delivery>>('GET', `/api/webhooks/${encodeURIComponent(id)}/deliveries?limit=20`),
  retry: (id: string, deliveryId: string) => request<Delivery>('POST', `/api/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`),
  test: (id: string) => request<Delivery>('POST', `/api/webhooks/${encodeURIComponent(id)}/test`),
};

/** Webhooks (ADMIN only): endpoints, their events, the secret shown once, recent deliveries, retry, a test event. */
export function WebhooksPage() {
  const user = useUser();
  if (user.role !== 'ADMIN') {
    return (
      <>
        <PageTitle>Webhooks</PageTitle>
        <p className="notice">Only admins manage webhooks.</p>
      </>
    );
  }
  return <WebhooksAdmin />;
}

function WebhooksAdmin() {
  const hooks = useQuery({ queryKey: ['webhooks'], queryFn: hooksApi.list });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <NewWebhookForm onCreated={(w) => setSecret({ url: w.url, secret: w.secret })} />
      {secret && <SecretOnce {...secret} onDone={() => setSecret(null)} />}
      <section className="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">
          Endpoints {hooks.data && <span className="count">{hooks.data.length}</span>}
        </h2>
        {!hooks.data && <QueryError query={hooks} what="The webhooks" />}
        {hooks.data?.length === 0 && <p className="muted">No webhook yet.</p>}
        {hooks.data?.map((w) => <WebhookCard key={w.id} webhook={w} onSecret={(s) => setSecret({ url: w.url, secret: s })} />)}
      </section>
    </>
  );
}

/** A new secret, shown this once, with a Copy button. */
function SecretOnce({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section className="card notice" aria-labelledby="secret-title" data-testid="webhook-secret">
      <h2 id="secret-title">Signing secret for {url}</h2>
      <p>Copy it now: it is not shown again. Receivers verify each delivery’s webhook-signature with it (Standard Webhooks).</p>
      <code className="secret">{secret}</code>
      <div className="row-actions">
        <button
          type="button"
          className="secondary small"
          onClick={() => {
            void navigator.clipboard?.writeText(secret).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="small" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

function NewWebhookForm({ onCreated }: { onCreated: (w: WebhookWithSecret) => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['*']);
  const create = useMutation({
    mutationFn: () => hooksApi.create({ url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) }),
    onSuccess: (w) => {
      setUrl('');
      setDescription('');
      setEvents(['*']);
      onCreated(w);
      void queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const toggle = (e: string) => setEvents((cur) => (cur.includes(e) ? cur.filter((x) => x !== e) : [...cur.filter((x) => e === '*' || x !== '*'), e].filter((x) => e !== '*' || x === '*')));
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    create.mutate();
  };
  return (
    <section className="card" aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">Add a webhook</h2>
      <form onSubmit={submit} noValidate>
        <Field label="URL">
          {(props) => <input {...props} name="url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/hooks/print-orders" required />}
        </Field>
        <Field label="Description">
          {(props) => <input {...props} name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />}
        </Field>
        <fieldset>
          <legend>Events</legend>
          {['*', ...WEBHOOK_EVENT_TYPES].map((e) => (
            <label key={e} className="checkbox">
              <input type="checkbox" name="events" value={e} checked={events.includes(e)} onChange={() => toggle(e)} /> {e === '*' ? 'All events' : e}
            </label>
          ))}
        </fieldset>
        <ErrorMessage error={create.error} />
        <button type="submit" aria-disabled={create.isPending}>
          Add webhook
        </button>
      </form>
    </section>
  );
}

function WebhookCard({ webhook: w, onSecret }: { webhook: Webhook; onSecret: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const [deleted, setDeleted] = useState(false);
  const deliveries = useQuery({ queryKey: ['webhook-deliveries', w.id], queryFn: () => hooksApi.deliveries(w.id), refetchInterval: 3000, enabled: !deleted });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', w.id] });
  };
  const act = useMutation({
    mutationFn: async (what: 'test' | 'toggle' | 'rotate' | 'delete' | { retry: string }) => {
      if (what === 'test') return hooksApi.test(w.id);
      if (what === 'toggle') return hooksApi.update(w.id, { active: !w.active });
      if (what === 'rotate') {
        const rotated = await hooksApi.update(w.id, { rotateSecret: true });
        if (rotated.secret) onSecret(rotated.secret);
        return rotated;
      }
      if (what === 'delete') return hooksApi.remove(w.id);
      return hooksApi.retry(w.id, what.retry);
    },
    onSuccess: (_data, what) => {
      if (what !== 'delete') return refresh();
      // Gone: its deliveries are not asked for again (they would answer 404).
      setDeleted(true);
      queryClient.removeQueries({ queryKey: ['webhook-deliveries', w.id] });
      void queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  return (
    <article className="webhook" data-testid={`webhook-${w.url}`}>
      <h3>
        {w.url} <span className={w.active ? 'badge' : 'badge badge-cancelled'}>{w.active ? 'Active' : 'Inactive'}</span>
      </h3>
      {w.description && <p>{w.description}</p>}
      <p className="muted small-text">
        Events: {w.events.join(', ')}
        {w.failingSince && <> · failing since {formatDateTime(w.failingSince)}</>}
      </p>
      <div className="row-actions">
        <button type="button" className="secondary small" onClick={() => act.mutate('test')}>
          Send a test event
        </button>
        <button type="button" className="secondary small" onClick={() => act.mutate('toggle')}>
          {w.active ? 'Deactivate' : 'Activate'}
        </button>
        <button type="button" className="secondary small" onClick={() => act.mutate('rotate')}>
          Rotate secret
        </button>
        <button type="button" className="danger small" onClick={() => window.confirm(`Delete the webhook to ${w.url}?`) && act.mutate('delete')}>
          Delete
        </button>
      </div>
      <ErrorMessage error={act.error} />
      <h4>Recent deliveries</h4>
      {!deliveries.data && <QueryError query={deliveries} what="The deliveries" />}
      {deliveries.data?.items.length === 0 && <p className="muted">None yet.</p>}
      {deliveries.data && deliveries.data.items.length > 0 && (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.items.map((d) => (
                <tr key={d.id} data-testid={`delivery-${d.event}`}>
                  <td>{d.event}</td>
                  <td>
                    <span className={d.status === 'failed' ? 'badge badge-cancelled' : 'badge'}>{d.status}</span>
                  </td>
                  <td>{d.attempts}</td>
                  <td className="small-text">{d.lastError ?? (d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : '—')}</td>
                  <td>
                    <time dateTime={d.createdAt}>{formatDateTime(d.createdAt)}</time>
                  </td>
                  <td>
                    <button type="button" className="secondary small" onClick={() => act.mutate({ retry: d.id })}>
                      Retry
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
