import type { Config } from '../config.js';
import { MemoryBroker } from './memory/index.js';
import { CHANNELS, EVENTS, type RealtimeBroker } from './types.js';

export type { RealtimeBroker, Notification } from './types.js';

/** The configured realtime driver. */
export async function createRealtime(config: Config): Promise<RealtimeBroker> {
  switch (config.realtimeDriver) {
    case 'memory':
      return new MemoryBroker();
  }
}

/** Specification part 6: a project changed, so project lists and dashboards refresh; in this order. */
export async function notifyProjectChanged(broker: RealtimeBroker, projectId: string): Promise<void> {
  await broker.publish({ channel: CHANNELS.PROJECTS, event: EVENTS.PROJECT_UPDATED, payload: { id: projectId } });
  await broker.publish({ channel: CHANNELS.DASHBOARD, event: EVENTS.STATS_UPDATED, payload: {} });
}
