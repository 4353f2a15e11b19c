/**
 * A realtime broker in a process of its own, for the realtime contract's clean close: made from
 * the environment as the service makes it, it delivers one message to a subscriber and closes.
 * Nothing of the broker may then keep the process alive: the test expects it to end by itself.
 * Prints `closed` and the resources still open right after close (what to look at when it does not end).
 */
import { loadConfig } from '../../src/config.js';
import { silentLog } from '../../src/logger.js';
import { createRealtime } from '../../src/realtime/index.js';
import { CHANNELS, EVENTS } from '../../src/realtime/types.js';

const broker = await createRealtime(loadConfig(process.env), silentLog);
const delivered = new Promise<void>((resolve) => broker.subscribe(() => resolve()));
await broker.publish({ channel: CHANNELS.PROJECTS, event: EVENTS.PROJECT_UPDATED, payload: { id: 'p1' }, ownerId: 'u1' });
await delivered;
await broker.close();
console.log(JSON.stringify({ closed: true, open: process.getActiveResourcesInfo() }));
