/** How the fields are named in messages meant for people. */
export const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  description: 'Description',
  note: 'Note',
  email: 'Email',
  phone: 'Phone',
  location: 'Location',
  branch: 'Branch',
  password: 'Password',
  role: 'Role',
  active: 'Active',
  status: 'Status',
  piStatus: 'PI status',
  pocId: 'Point of contact',
  'approval.status': 'Approval status',
  'approval.note': 'Note',
};
export const labelOf = (field: string): string => FIELD_LABELS[field] ?? field;
