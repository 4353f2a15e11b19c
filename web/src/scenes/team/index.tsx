import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, Fragment, useEffect, useRef, useState } from 'react';
import { ROLES, type Role, type TeamMember, api } from '../../api';
import { ErrorMessage, Field, FormActions, FormOutcome, PageTitle, QueryError, placeError } from '../../components';
import { MAX_LENGTH, PASSWORD, emailRefusal, passwordRefusal } from '../../../../src/domain/limits';
import { ROLE_CHOICES, ROLE_LABELS, formatDate } from '../../format';
import { useUser } from '../../session';

/** The team (ADMIN only): members, adding one, editing, deactivating and reactivating, resetting a password. */
export function TeamPage() {
  const user = useUser();
  if (user.role !== 'ADMIN') {
    return (
      <>
        <PageTitle>Team</PageTitle>
        <p className="notice" data-testid="team-forbidden">
          Only admins manage the team. Ask an admin if someone needs an account or a new password.
        </p>
      </>
    );
  }
  return <TeamAdmin />;
}

type Panel = { id: string; mode: 'edit' | 'password' } | null;

function TeamAdmin() {
  const me = useUser();
  const queryClient = useQueryClient();
  const team = useQuery({ queryKey: ['team'], queryFn: api.team });
  const [panel, setPanel] = useState<Panel>(null);
  const [confirmDeactivate, setConfirmDeactivate] = useState<string | null>(null);
  const [rowMessage, setRowMessage] = useState<{ id: string; text: string; error: boolean } | null>(null);
  // When a panel closes, the keyboard focus goes back to the button that opened it.
  const [refocus, setRefocus] = useState<string | null>(null);
  useEffect(() => {
    if (refocus) document.getElementById(refocus)?.focus();
  }, [refocus]);
  const close = (id: string, mode: 'edit' | 'password', message?: string) => {
    setPanel(null);
    if (message) setRowMessage({ id, text: message, error: false });
    setRefocus(`${mode}-${id}`);
  };

  const setActive = useMutation({
    mutationFn: (m: TeamMember) => api.updateMember(m.id, { active: !m.active }),
    onMutate: () => setRowMessage(null),
    onSuccess: (m) => {
      setConfirmDeactivate(null);
      setRowMessage({ id: m.id, text: m.active ? `${m.name} is active again and can sign in.` : `${m.name} is deactivated and signed out.`, error: false });
      void queryClient.invalidateQueries({ queryKey: ['team'] });
      void queryClient.invalidateQueries({ queryKey: ['stats'] });
    },
    onError: (err, m) => setRowMessage({ id: m.id, text: err.message, error: true }),
  });

  const toggle = (id: string, mode: 'edit' | 'password') => {
    setRowMessage(null);
    setRefocus(null);
    setPanel((cur) => (cur?.id === id && cur.mode === mode ? null : { id, mode }));
  };

  return (
    <>
      <PageTitle>Team</PageTitle>
      <NewMemberForm />
      <section className="card flush" aria-labelledby="members-title">
        <h2 id="members-title" className="pad">
          Members {team.data && <span className="count">{team.data.length}</span>}
        </h2>
        {!team.data && <QueryError query={team} what="The team" />}
        {team.isPending && <p className="muted pad">Loading the team…</p>}
        {team.data && (
          <div className="table-scroll">
            <table className="table responsive team-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Branch · location</th>
                  <th scope="col">Phone</th>
                  <th scope="col">Status</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {team.data.map((m) => (
                  <Fragment key={m.id}>
                    <tr className={m.active ? undefined : 'inactive'} data-testid={`member-${m.email}`}>
                      <td data-label="Name" className="row-title">
                        <div className="cell">
                          <strong>{m.name}</strong>
                          {m.id === me.id && <span className="muted"> (you)</span>}
                          <div className="muted small-text">{m.email}</div>
                        </div>
                      </td>
                      <td data-label="Role">{ROLE_LABELS[m.role]}</td>
                      <td data-label="Branch · location">{[m.branch, m.location].filter(Boolean).join(' · ') || '—'}</td>
                      <td data-label="Phone" className="nowrap">{m.phone ?? '—'}</td>
                      <td data-label="Status">
                        <span className={m.active ? 'badge' : 'badge badge-cancelled'}>{m.active ? 'Active' : 'Inactive'}</span>
                      </td>
                      <td data-label="Added">
                        <time dateTime={m.createdAt}>{formatDate(m.createdAt)}</time>
                      </td>
                      <td className="actions-cell">
                        <div className="row-actions">
                          <button type="button" id={`edit-${m.id}`} className="secondary small" aria-expanded={panel?.id === m.id && panel.mode === 'edit'} onClick={() => toggle(m.id, 'edit')}>
                            Edit<span className="visually-hidden"> {m.name}</span>
                          </button>
                          <button
                            type="button"
                            id={`password-${m.id}`}
                            className="secondary small"
                            aria-expanded={panel?.id === m.id && panel.mode === 'password'}
                            onClick={() => toggle(m.id, 'password')}
                          >
                            Reset password<span className="visually-hidden"> of {m.name}</span>
                          </button>
                          {m.id !== me.id && (
                            <button
                              type="button"
                              className={m.active ? 'danger small' : 'secondary small'}
                              onClick={() => (m.active ? setConfirmDeactivate(m.id) : setActive.mutate(m))}
                              aria-disabled={setActive.isPending}
                              aria-expanded={m.active ? confirmDeactivate === m.id : undefined}
                            >
                              {m.active ? 'Deactivate' : 'Reactivate'}
                              <span className="visually-hidden"> {m.name}</span>
                            </button>
                          )}
                        </div>
                      </td>
                    </tr>
                    {(panel?.id === m.id || rowMessage?.id === m.id || confirmDeactivate === m.id) && (
                      <tr className="panel-row">
                        <td colSpan={7}>
                          {confirmDeactivate === m.id && m.active && (
                            <div className="confirm" role="group" aria-label={`Confirm deactivation of ${m.name}`}>
                              <p>Deactivate {m.name}? They are signed out at once and can no longer sign in; their projects stay.</p>
                              <div className="button-row">
                                <button type="button" className="danger" onClick={() => !setActive.isPending && setActive.mutate(m)} autoFocus aria-disabled={setActive.isPending}>
                                  Yes, deactivate {m.name}
                                </button>
                                <button type="button" className="secondary" onClick={() => setConfirmDeactivate(null)}>
                                  Keep active
                                </button>
                              </div>
                            </div>
                          )}
                          {rowMessage?.id === m.id && (
                            <p className={rowMessage.error ? 'error' : 'success'} role={rowMessage.error ? 'alert' : 'status'}>
                              {rowMessage.text}
                            </p>
                          )}
                          {panel?.id === m.id && panel.mode === 'edit' && (
                            <EditMemberForm member={m} onDone={(text) => close(m.id, 'edit', text)} onCancel={() => close(m.id, 'edit')} />
                          )}
                          {panel?.id === m.id && panel.mode === 'edit' && m.role === 'CLIENT' && <ClientCustomer member={m} />}
                          {panel?.id === m.id && panel.mode === 'password' && (
                            <PasswordForm member={m} onDone={(text) => close(m.id, 'password', text)} onCancel={() => close(m.id, 'password')} />
                          )}
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

type ProfileField = 'role' | 'phone' | 'branch' | 'location';

/** The fields the add and edit forms share: role, phone, branch, location. */
function ProfileFields({ values, set, errors, optional = false }: { values: Record<ProfileField, string>; set: (field: ProfileField) => (e: { target: { value: string } }) => void; errors: Record<string, string>; optional?: boolean }) {
  const label = (name: string) => (optional ? `${name} (optional)` : name);
  return (
    <>
      <Field label="Role" error={errors.role}>
        {(p) => (
          <select {...p} value={values.role} onChange={set('role')}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_CHOICES[r]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={label('Phone')} error={errors.phone}>
        {(p) => <input {...p} type="tel" value={values.phone} onChange={set('phone')} autoComplete="off" maxLength={MAX_LENGTH.phone} />}
      </Field>
      <Field label={label('Branch')} error={errors.branch}>
        {(p) => <input {...p} value={values.branch} onChange={set('branch')} autoComplete="off" maxLength={MAX_LENGTH.branch} />}
      </Field>
      <Field label={label('Location')} error={errors.location}>
        {(p) => <input {...p} value={values.location} onChange={set('location')} autoComplete="off" maxLength={MAX_LENGTH.location} />}
      </Field>
    </>
  );
}

const EMPTY = { name: '', email: '', password: '', role: 'POC' as Role, phone: '', location: '', branch: '' };

/**
 * What the form refuses before asking the API, by field. POST /api/team keeps the specification's
 * checks (any non-empty password and email); the web app holds new members to the rules of our own
 * endpoints (interface.md: passwords of at least 8 characters) and to a whole email address.
 */
function newMemberRefusals(values: typeof EMPTY): Record<string, string> {
  const refusals: Record<string, string> = {};
  const blank = (['name', 'email', 'password'] as const).filter((f) => !values[f].trim());
  // The specification's own message, by each field it names, as the API would answer.
  for (const f of blank) refusals[f] = 'Name, email and password are required';
  if (!blank.includes('email')) {
    const refusal = emailRefusal(values.email);
    if (refusal) refusals.email = refusal.message;
  }
  if (!blank.includes('password')) {
    const refusal = passwordRefusal(values.password);
    if (refusal) refusals.password = refusal.message;
  }
  return refusals;
}

/**
 * Refusals found before sending, beside their fields until corrected: `refuse` shows them (and
 * moves the focus to the first field to correct), `clear(field)` takes one away as it is edited.
 */
function useFormRefusals() {
  const form = useRef<HTMLFormElement>(null);
  const [refusals, setRefusals] = useState<Record<string, string>>({});
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [attempt]);
  return {
    form,
    refusals,
    refuse: (found: Record<string, string>) => {
      setRefusals(found);
      if (Object.keys(found).length) setAttempt((n) => n + 1);
      return Object.keys(found).length > 0;
    },
    clear: (field: string) => setRefusals((r) => (field in r ? Object.fromEntries(Object.entries(r).filter(([f]) => f !== field)) : r)),
  };
}

function NewMemberForm() {
  const queryClient = useQueryClient();
  const [values, setValues] = useState(EMPTY);
  const [added, setAdded] = useState<string | null>(null);
  const checks = useFormRefusals();
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => {
    setValues((v) => ({ ...v, [field]: e.target.value }));
    checks.clear(field);
  };
  const create = useMutation({
    mutationFn: () => {
      const optional = (k: 'phone' | 'location' | 'branch') => (values[k].trim() ? { [k]: values[k] } : {});
      return api.createMember({ name: values.name, email: values.email, password: values.password, role: values.role, ...optional('phone'), ...optional('location'), ...optional('branch') });
    },
    onMutate: () => setAdded(null),
    onSuccess: (m) => {
      setAdded(`${m.name} is added as ${m.role === 'ADMIN' ? 'an admin' : m.role === 'POC' ? 'a POC' : 'a client'} and can sign in with ${m.email}.`);
      setValues(EMPTY);
      void queryClient.invalidateQueries({ queryKey: ['team'] });
      void queryClient.invalidateQueries({ queryKey: ['stats'] });
    },
  });
  const answered = placeError(create.error, values);
  const fields = { ...answered.fields, ...checks.refusals };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (create.isPending) return;
    if (checks.refuse(newMemberRefusals(values))) {
      // The API's earlier answer no longer applies to what is in the form now.
      create.reset();
      setAdded(null);
      return;
    }
    create.mutate();
  };

  return (
    <section className="card" aria-labelledby="new-member-title">
      <h2 id="new-member-title">Add a member</h2>
      <form ref={checks.form} onSubmit={submit} noValidate className="form-grid">
        <Field label="Name" error={fields.name}>
          {(p) => <input {...p} value={values.name} onChange={set('name')} autoComplete="off" maxLength={MAX_LENGTH.name} />}
        </Field>
        <Field label="Email" error={fields.email}>
          {(p) => <input {...p} type="email" value={values.email} onChange={set('email')} autoComplete="off" maxLength={MAX_LENGTH.email} />}
        </Field>
        <Field label="Password" error={fields.password} hint={`At least ${PASSWORD.minLength} characters. They can sign in with it at once.`}>
          {(p) => <input {...p} type="password" value={values.password} onChange={set('password')} autoComplete="new-password" />}
        </Field>
        <ProfileFields values={values} set={set} errors={fields} optional />
        <FormActions label="Add member" busyLabel="Adding…" pending={create.isPending} wide />
        <FormOutcome error={answered.form} done={added} />
      </form>
    </section>
  );
}

function EditMemberForm({ member, onDone, onCancel }: { member: TeamMember; onDone: (message: string) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState({ name: member.name, email: member.email, role: member.role as string, phone: member.phone ?? '', branch: member.branch ?? '', location: member.location ?? '' });
  const checks = useFormRefusals();
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => {
    setValues((v) => ({ ...v, [field]: e.target.value }));
    checks.clear(field);
  };
  const save = useMutation({
    mutationFn: () => {
      // Only what changed, so an unchanged role of the last admin is not "demoted".
      const change: Record<string, string | null> = {};
      if (values.name !== member.name) change.name = values.name;
      if (values.email.trim() !== member.email) change.email = values.email;
      if (values.role !== member.role) change.role = values.role;
      for (const k of ['phone', 'branch', 'location'] as const) if (values[k] !== (member[k] ?? '')) change[k] = values[k].trim() ? values[k] : null;
      return api.updateMember(member.id, change);
    },
    onSuccess: (m) => {
      void queryClient.invalidateQueries({ queryKey: ['team'] });
      void queryClient.invalidateQueries({ queryKey: ['stats'] });
      onDone(`${m.name} is saved.`);
    },
  });
  const answered = placeError(save.error, values);
  const fields = { ...answered.fields, ...checks.refusals };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    // A changed email must be a whole address; an unchanged one is left as it is (the API may hold older ones).
    const emailRefused = values.email.trim() !== member.email && values.email.trim() ? emailRefusal(values.email) : null;
    if (checks.refuse(emailRefused ? { email: emailRefused.message } : {})) {
      save.reset();
      return;
    }
    save.mutate();
  };
  return (
    <form ref={checks.form} onSubmit={submit} noValidate className="form-grid" aria-label={`Edit ${member.name}`}>
      <Field label="Name" error={fields.name}>
        {(p) => <input {...p} value={values.name} onChange={set('name')} autoComplete="off" autoFocus maxLength={MAX_LENGTH.name} />}
      </Field>
      <Field label="Email" error={fields.email} hint="They sign in with it.">
        {(p) => <input {...p} type="email" value={values.email} onChange={set('email')} autoComplete="off" maxLength={MAX_LENGTH.email} />}
      </Field>
      <ProfileFields values={values} set={set} errors={fields} />
      <FormActions label="Save" busyLabel="Saving…" pending={save.isPending} onCancel={onCancel} wide />
      <FormOutcome error={answered.form} />
    </form>
  );
}

function PasswordForm({ member, onDone, onCancel }: { member: TeamMember; onDone: (message: string) => void; onCancel: () => void }) {
  const [password, setPassword] = useState('');
  const reset = useMutation({
    mutationFn: () => api.updateMember(member.id, { password }),
    onSuccess: (m) => onDone(`${m.name}’s password is changed; their sessions have ended.`),
  });
  const { fields, form } = placeError(reset.error, { password });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!reset.isPending) reset.mutate();
  };
  return (
    <form onSubmit={submit} noValidate className="inline-form" aria-label={`New password for ${member.name}`}>
      <Field label={`New password for ${member.name}`} error={fields.password} hint={`At least ${PASSWORD.minLength} characters.`}>
        {(p) => <input {...p} type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" autoFocus />}
      </Field>
      <FormActions label="Set password" pending={reset.isPending} onCancel={onCancel} />
      <ErrorMessage error={form} />
    </form>
  );
}

/**
 * The company a CLIENT belongs to (PATCH /api/team/:id {customerId}): they then see that customer's
 * projects. Read with GET /api/team/:id, since the specification's list carries no customerId.
 */
function ClientCustomer({ member }: { member: TeamMember }) {
  const queryClient = useQueryClient();
  const detail = useQuery({ queryKey: ['member', member.id], queryFn: () => api.member(member.id) });
  const customers = useQuery({ queryKey: ['customers', { active: 'all', limit: 200 }], queryFn: () => api.customers({ active: 'all', limit: 200 }) });
  const [saved, setSaved] = useState<string | null>(null);
  const attach = useMutation({
    mutationFn: (customerId: string | null) => api.setMemberCustomer(member.id, customerId),
    onMutate: () => setSaved(null),
    onSuccess: (m) => {
      queryClient.setQueryData(['member', member.id], m);
      void queryClient.invalidateQueries({ queryKey: ['customer'] });
      const name = customers.data?.items.find((c) => c.id === m.customerId)?.name;
      setSaved(name ? `${m.name} now sees ${name}’s projects.` : `${m.name} is no longer attached to a customer.`);
    },
  });
  const { fields, form } = placeError(attach.error, { customerId: '' });
  return (
    <div className="inline-form" data-testid="client-customer">
      <Field label={`Customer of ${member.name}`} error={fields.customerId} hint="A client sees every project of their customer.">
        {(p) =>
          detail.data && customers.data ? (
            <select {...p} value={detail.data.customerId ?? ''} onChange={(e) => attach.mutate(e.target.value || null)} aria-disabled={attach.isPending}>
              <option value="">No customer</option>
              {customers.data.items.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                  {c.active ? '' : ' (inactive)'}
                </option>
              ))}
            </select>
          ) : (
            <select {...p} disabled>
              <option>Loading…</option>
            </select>
          )
        }
      </Field>
      <QueryError query={detail} what="The member’s customer" />
      <ErrorMessage error={form} />
      {saved && (
        <p className="success" role="status">
          {saved}
        </p>
      )}
    </div>
  );
}
