import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { type ProjectDetail, api } from '../../api';
import { ErrorMessage, Field, FormActions } from '../../components';
import { JobFieldsEditor, type JobValues, jobBody, jobRefusals, jobValuesOf, placeJobError } from '../../components/job-fields';
import { stageOf } from '../../format';
import { MAX_LENGTH } from '../../../../src/domain/limits';

/** Change the name and description: the owner while the request is open (to correct a rejected one), an admin always. */
export function EditDetails({ project: p }: { project: ProjectDetail }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState({ name: p.name, description: p.description ?? '' });
  const [job, setJob] = useState<JobValues>(jobValuesOf(p));
  const [refusals, setRefusals] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<string | null>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const save = useMutation({
    mutationFn: () => api.editDetails(p.id, { name: values.name, description: values.description.trim() ? values.description : null, ...jobBody(job) }),
    onSuccess: (updated) => {
      setOpen(false);
      setSaved(updated.updatedAt);
      toggleRef.current?.focus();
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
    },
  });
  const answered = placeJobError(save.error, values);
  const fields = { ...answered.fields, ...refusals };
  const form = answered.form;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    const found = jobRefusals(job);
    setRefusals(found);
    if (Object.keys(found).length) return save.reset();
    save.mutate();
  };
  const rejected = stageOf(p) === 'REJECTED';
  return (
    <div className="edit-details">
      <button
        type="button"
        ref={toggleRef}
        className="secondary small"
        aria-expanded={open}
        onClick={() => {
          setValues({ name: p.name, description: p.description ?? '' });
          setJob(jobValuesOf(p));
          setRefusals({});
          setSaved(null);
          save.reset();
          setOpen((o) => !o);
        }}
      >
        Edit details
      </button>
      {saved === p.updatedAt && (
        <p className="success" role="status">
          Saved.{rejected ? ' When it is right, ask for approval again below.' : ''}
        </p>
      )}
      {open && (
        <form className="card form" onSubmit={submit} noValidate aria-label="Edit details">
          <Field label="Name" error={fields.name} hint={`Up to ${MAX_LENGTH.name} characters.`}>
            {(props) => <input {...props} value={values.name} onChange={set('name')} autoComplete="off" maxLength={MAX_LENGTH.name} autoFocus />}
          </Field>
          <Field label="Description (optional)" error={fields.description}>
            {(props) => <textarea {...props} rows={3} value={values.description} onChange={set('description')} maxLength={MAX_LENGTH.description} />}
          </Field>
          <JobFieldsEditor values={job} onChange={setJob} errors={fields} />
          <ErrorMessage error={form} />
          <FormActions label="Save" busyLabel="Saving…" pending={save.isPending} onCancel={() => setOpen(false)} />
        </form>
      )}
    </div>
  );
}
