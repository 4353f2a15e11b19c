import path from 'node:path';
import type { Config } from '../config.js';
import { LocalStorage } from './local/index.js';
import type { FileStorage } from './types.js';

export type { FileStorage } from './types.js';

/** The configured storage driver. Only the chosen driver's code (and SDK) is loaded. */
export async function createStorage(config: Config): Promise<FileStorage> {
  switch (config.storageDriver) {
    case 'local':
      return new LocalStorage(path.join(config.dataDir, 'uploads'), config.publicUrl);
  }
}
