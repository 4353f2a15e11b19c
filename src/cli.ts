import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApiToken } from './actions/api-tokens.js';
import { createTeamMember, updateTeamMember } from './actions/team.js';
import { backup, restore } from './backup.js';
import { askNewPassword } from './cli-prompt.js';
import { type Config, ConfigError, describeDatabase, loadConfig } from './config.js';
import { migrate, openDatabase } from './db/index.js';
import { systemClock } from './deps.js';
import { createStore } from './db/store.js';
import { passwordRefusal } from './domain/limits.js';
import { isAppError } from './errors.js';
import { type Log, createLogger } from './logger.js';
import { sendWithin } from './mail/dispatcher.js';
import { createMailTransport } from './mail/index.js';
import { testEmail } from './mail/templates.js';
import { createRealtime } from './realtime/index.js';
import { createStorage } from './storage/index.js';
import { isClean, reconcile, summarize } from './storage/reconcile.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  migrate                                   bring the database schema up to date
  create-user --email E --name N [--password P] [--role ADMIN|POC|CLIENT] [--phone X] [--location X] [--branch X]
                                            without --password it is asked for at the terminal, not shown
  reset-password --email E [--password P]   set a new password (ends the user's sessions); asked for likewise
  fsck [--repair]                           compare stored files with their records: files without a record,
                                            records without a file, incomplete writes, unused name reservations
                                            (older than RECONCILE_GRACE_MS); --repair removes and releases them.
                                            Exit code 0 when all is well (or repaired), 1 when something remains.
  backup <dir>                              SQLite: a consistent copy of the database (safe while the service runs),
                                            then of the local files, into a new directory
  restore <dir>                             SQLite: put a backup in place (stop the service first); what was
                                            there is moved aside, not deleted
  send-test-email <address>                 send one email through the configured transport (SMTP_URL, or an .eml file)
  create-token <email> <name> [--scope read|write] [--expires-in-days N]
                                            make an API token for an active user (default read, no expiry);
                                            the token is printed once, on stdout: only its hash is kept

The database is the one the service uses: DATABASE_URL, or DATA_DIR (default ./data), from the environment or
the .env file of the working directory, as the service reads them. Each command says which database it used.`;

/** What the parts the CLI uses log (warnings, such as a session signal not published), as plain lines on stderr for a person at a terminal. */
const cliLog: Log = createLogger('warn', {
  write(line: string) {
    const { level, msg, err } = JSON.parse(line) as { level: number; msg: string; err?: { message?: string } };
    console.warn(`${level >= 50 ? 'Error' : 'Warning'}: ${msg}${err?.message ? ` (${err.message})` : ''}`);
  },
});

async function main(argv: string[]): Promise<number> {
  const envFile = fs.existsSync('.env') ? path.resolve('.env') : null;
  if (envFile) process.loadEnvFile(envFile);
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      phone: { type: 'string' },
      location: { type: 'string' },
      branch: { type: 'string' },
      repair: { type: 'boolean' },
      scope: { type: 'string' },
      'expires-in-days': { type: 'string' },
    },
  });
  if (!command || !['migrate', 'create-user', 'reset-password', 'fsck', 'backup', 'restore', 'send-test-email', 'create-token'].includes(command)) {
    console.error(USAGE);
    return command ? 2 : 0;
  }

  const config = loadConfig();
  if (command === 'backup' || command === 'restore') {
    const dir = positionals[0];
    if (!dir) throw new Error(`${command} needs a directory: npm run cli -- ${command} <dir>`);
    if (command === 'backup') {
      const made = await backup(config, path.resolve(dir));
      console.log(`Backed up the database and ${made.files} file(s) into ${path.resolve(dir)}.`);
    } else {
      const put = await restore(config, path.resolve(dir));
      console.log(`Restored the backup of ${put.createdAt} (${put.files} file(s)); set aside: ${put.setAside.join(', ') || 'nothing'}.`);
      console.log('Start the service: it reconciles storage and records at start-up.');
    }
    return 0;
  }
  if (command === 'send-test-email') return sendTestEmail(config, positionals);
  // Asked before the database is opened: a mistyped password leaves nothing behind.
  const password = command === 'create-user' || command === 'reset-password' ? await newPassword(command, values.password) : undefined;
  const where = `${describeDatabase(config.database)} (${envFile ? `settings from the environment and ${envFile}` : 'settings from the environment; no .env here'})`;
  // A second, empty database made by mistake is how an admin is created that cannot sign in: say so.
  const fresh = config.database.dialect === 'sqlite' && !fs.existsSync(config.database.file);
  const database = await openDatabase(config.database, cliLog);
  if (fresh) {
    console.error(
      `Note: there was no database at ${config.database.dialect === 'sqlite' ? config.database.file : ''}; a new, empty one was made. ` +
        'If the service runs with another DATA_DIR or DATABASE_URL, give this command the same (in .env or the environment).',
    );
  }
  try {
    await migrate(database);
    const store = createStore(database);
    if (command === 'migrate') {
      console.log(`Database schema is up to date: ${where}.`);
    } else if (command === 'fsck') {
      const storage = await createStorage(config);
      const report = await reconcile({ store, storage }, { repair: Boolean(values.repair), graceMs: config.reconcile.graceMs });
      console.log(JSON.stringify(report, null, 2));
      console.log(summarize(report));
      // Repaired, only the missing objects (and problems) remain: nothing a repair can bring back.
      const remaining = report.repaired ? report.missing.length + report.problems.length : Number(!isClean(report));
      return remaining ? 1 : 0;
    } else if (command === 'create-token') {
      const [email, name] = positionals;
      if (!email || !name) throw new Error('create-token needs an email and a name: npm run cli -- create-token <email> <name> [--scope read|write] [--expires-in-days N]');
      const found = await store.users.findByEmailWithHash(email);
      if (!found?.user.active) throw new Error(`No active user with email ${email}`);
      const days = values['expires-in-days'];
      if (days !== undefined && !/^\d+$/.test(days)) throw new Error('--expires-in-days must be a whole number from 1 to 3650');
      const { token, secret } = await createApiToken({ store, clock: systemClock }, found.user, {
        name,
        scope: values.scope ?? 'read',
        expiresInDays: days === undefined ? null : Number(days),
      });
      console.error(`Created ${token.scope} token "${token.name}" for ${found.user.email} (id ${token.id}, ${token.expiresAt ? `expires ${token.expiresAt}` : 'no expiry'}). It is shown only now:`);
      console.log(secret);
    } else if (command === 'create-user') {
      if (values.role && !['ADMIN', 'POC', 'CLIENT'].includes(values.role)) throw new Error('--role must be ADMIN, POC or CLIENT');
      // The specification's POST /api/team accepts any non-empty password; our own entries ask for 8 characters.
      const user = await createTeamMember({ store }, { ...values, password });
      console.log(`Created ${user.role} ${user.email} (id ${user.id}) in ${where}.`);
    } else {
      const found = values.email ? await store.users.findByEmailWithHash(values.email) : undefined;
      if (!found) throw new Error(`No user with email ${values.email ?? '(none given)'}`);
      // With REALTIME_DRIVER=redis the service's open streams of this user end at once; otherwise at their next sweep (30 s).
      const realtime = await createRealtime(config, cliLog);
      try {
        await updateTeamMember({ store, realtime, log: cliLog }, found.user.id, { password });
      } finally {
        await realtime.close();
      }
      console.log(`Password of ${found.user.email} changed in ${where}; their sessions have ended.`);
    }
    return 0;
  } finally {
    await database.destroy();
  }
}

/**
 * The new password of create-user and reset-password: --password, or typed twice at the terminal
 * without being shown; checked (8 characters at least: our own entries, unlike the specification's
 * POST /api/team) before anything is written. Never printed.
 */
async function newPassword(command: string, given: string | undefined): Promise<string> {
  let password = given;
  if (password === undefined) {
    if (!process.stdin.isTTY) throw new Error(`${command} needs a password: give --password, or run it at a terminal to type it without it being shown`);
    password = await askNewPassword(process.stdin, process.stderr).catch((err: unknown) => {
      throw new Error(`no password set: ${(err as Error).message}`);
    });
  }
  const weak = passwordRefusal(password);
  if (weak) throw weak;
  return password;
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
