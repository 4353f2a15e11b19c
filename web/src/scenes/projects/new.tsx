import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../../api';
import { ErrorMessage, Field, PageTitle } from '../../components';
import { ROLE_LABELS } from '../../format';
import { MAX_LENGTH } from '../../../../src/domain/limits';
import { useUser } from '../../session';
import { JobFieldsEditor, type JobValues, jobBody, jobRefusals, jobValuesOf, placeJobError } from '../../components/job-fields';

/** Create a project: anyone for themselves; an admin for any active member. */
export function NewProjectPage() {
  const user = useUser();
  const isAdmin = user.role === 'ADMIN';
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const team = useQuery({ queryKey: ['team'], queryFn: api.team, enabled: isAdmin });
  const [values, setValues] = useState({ name: '', description: '', pocId: user.id });
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const [job, setJob] = useState<JobValues>(jobValuesOf());
  const [refusals, setRefusals] = useState<Record<string, string>>({});

  const create = useMutation({
    mutationFn: () =>
      api.createProject({
        name: values.name,
        ...(values.description.trim() ? { description: values.description } : {}),
        ...(isAdmin ? { pocId: values.pocId } : {}),
        ...jobBody(job),
      }),
    onSuccess: (project) => {
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      navigate(`/projects/${project.id}`);
    },
  });
  const answered = placeJobError(create.error, values);
  const fields = { ...answered.fields, ...refusals };
  const form = answered.form;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (create.isPending) return;
    const found = jobRefusals(job);
    setRefusals(found);
    if (Object.keys(found).length) return create.reset();
    create.mutate();
  };

  const members = (team.data ?? []).filter((m) => m.active);

  return (
    <>
      <p className="breadcrumb">
        <Link href="/projects">← Projects</Link>
      </p>
      <PageTitle>New project</PageTitle>
      <form className="card form" onSubmit={submit} noValidate>
        <Field label="Name" error={fields.name}>
          {(p) => <input {...p} value={values.name} onChange={set('name')} autoComplete="off" maxLength={MAX_LENGTH.name} />}
        </Field>
        <Field label="Description (optional)" error={fields.description}>
          {(p) => <textarea {...p} rows={3} value={values.description} onChange={set('description')} maxLength={MAX_LENGTH.description} />}
        </Field>
        {isAdmin && (
          <Field label="Point of contact" error={fields.pocId} hint="The member who owns the project and uploads its documents.">
            {(p) => (
              <select {...p} value={values.pocId} onChange={set('pocId')}>
                {!members.some((m) => m.id === user.id) && <option value={user.id}>{user.name} (you)</option>}
                {members.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.name} ({m.email}, {ROLE_LABELS[m.role]}){m.id === user.id ? ' (you)' : ''}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <JobFieldsEditor values={job} onChange={setJob} errors={fields} />
        <ErrorMessage error={form} />
        <div className="form-actions">
          <button type="submit" className="primary" aria-disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create project'}
          </button>
          <Link href="/projects" className="button secondary">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}
