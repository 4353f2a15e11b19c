import type { Config } from '../config.js';
import { CHANNELS, EVENTS, type RealtimeBroker } from './types.js';

export type { RealtimeBroker, Notification } from './types.js';

/** The configured realtime driver. Only the chosen driver's code (and SDK) is loaded. */
export async function createRealtime(config: Config): Promise<RealtimeBroker> {
  const realtime = config.realtime;
  switch (realtime.driver) {
    case 'memory': {
      const { MemoryBroker } = await import('./memory/index.js');
      return new MemoryBroker();
    }
    case 'redis': {
      const { RedisBroker } = await import('./redis/index.js');
      return RedisBroker.connect(realtime);
    }
    case 'pusher': {
      const { PusherBroker } = await import('./pusher/index.js');
      return new PusherBroker(realtime);
    }
  }
}

/** Specification part 6: a project changed, so project lists and dashboards refresh; in this order. */
export async function notifyProjectChanged(broker: RealtimeBroker, projectId: string): Promise<void> {
  await broker.publish({ channel: CHANNELS.PROJECTS, event: EVENTS.PROJECT_UPDATED, payload: { id: projectId } });
  await broker.publish({ channel: CHANNELS.DASHBOARD, event: EVENTS.STATS_UPDATED, payload: {} });
}
