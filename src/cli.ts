import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { createTeamMember, updateTeamMember } from './actions/team.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { migrate, openDatabase } from './db/index.js';
import { createStore } from './db/store.js';
import { isAppError } from './errors.js';
import { sendWithin } from './mail/dispatcher.js';
import { createMailTransport } from './mail/index.js';
import { testEmail } from './mail/templates.js';
import { createRealtime } from './realtime/index.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  migrate                                   bring the database schema up to date
  create-user --email E --password P --name N [--role ADMIN|POC|CLIENT] [--phone X] [--location X] [--branch X]
  reset-password --email E --password P     set a new password (ends the user's sessions)
  send-test-email <address>                 send one email through the configured transport (SMTP_URL, or an .eml file)

The database is the one the service uses (DATABASE_URL, DATA_DIR, .env).`;

async function main(argv: string[]): Promise<number> {
  if (fs.existsSync('.env')) process.loadEnvFile('.env');
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: command === 'send-test-email',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      phone: { type: 'string' },
      location: { type: 'string' },
      branch: { type: 'string' },
    },
  });
  if (!command || !['migrate', 'create-user', 'reset-password', 'send-test-email'].includes(command)) {
    console.error(USAGE);
    return command ? 2 : 0;
  }

  const config = loadConfig();
  if (command === 'send-test-email') return sendTestEmail(config, positionals);
  const database = await openDatabase(config.database);
  try {
    await migrate(database);
    const store = createStore(database);
    if (command === 'migrate') {
      console.log(`Database schema is up to date (${config.database.dialect}).`);
    } else if (command === 'create-user') {
      if (values.role && !['ADMIN', 'POC', 'CLIENT'].includes(values.role)) throw new Error('--role must be ADMIN, POC or CLIENT');
      const user = await createTeamMember({ store }, { ...values });
      console.log(`Created ${user.role} ${user.email} (id ${user.id}).`);
    } else {
      const found = values.email ? await store.users.findByEmailWithHash(values.email) : undefined;
      if (!found) throw new Error(`No user with email ${values.email ?? '(none given)'}`);
      // With REALTIME_DRIVER=redis the service's open streams of this user end at once; otherwise at their next sweep (30 s).
      const realtime = await createRealtime(config);
      try {
        await updateTeamMember({ store, realtime }, found.user.id, { password: values.password ?? '' }, (err) => console.warn(`Warning: ${String(err)}`));
      } finally {
        await realtime.close();
      }
      console.log(`Password of ${found.user.email} changed; their sessions have ended.`);
    }
    return 0;
  } finally {
    await database.destroy();
  }
}

/** Checks the mail settings without the database: one email, sent now, the transport's answer printed. */
async function sendTestEmail(config: Config, positionals: string[]): Promise<number> {
  const [address] = positionals;
  if (!address || positionals.length > 1 || !address.includes('@')) throw new Error('send-test-email needs one email address');
  const transport = await createMailTransport(config);
  try {
    const sent = await sendWithin(transport, testEmail(address, config.publicUrl, transport.name));
    console.log(transport.name === 'eml' ? `No SMTP_URL set: the email was written to ${sent.detail}` : `Sent to ${address} through ${transport.name}: ${sent.detail}`);
    return 0;
  } finally {
    await transport.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = isAppError(err) || err instanceof ConfigError || err instanceof Error ? err.message : String(err);
    console.error(`Error: ${message}`);
    process.exit(1);
  },
);
