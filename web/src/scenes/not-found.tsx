import { Link } from 'wouter';
import { PageTitle } from '../components';

export function NotFoundPage() {
  return (
    <>
      <PageTitle>Page not found</PageTitle>
      <p>There is no page at this address.</p>
      <p>
        <Link href="/">Go to the dashboard</Link>
      </p>
    </>
  );
}
