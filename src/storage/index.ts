import path from 'node:path';
import type { Config, StorageConfig } from '../config.js';
import type { FileStorage, ResumableStore } from './types.js';

export type { FileStorage, ResumableStore } from './types.js';

/** What a driver is made from: its own settings and the service's data directory, public address, resumable expiry and document access (private: stored private). */
type Setup = Pick<Config, 'dataDir' | 'publicUrl' | 'resumableExpiryMs' | 'documentAccess'>;

/** A storage driver as the factory knows it: how to make its store, and where its resumable uploads wait. */
interface StorageDriver<S extends StorageConfig> {
  storage(settings: S, setup: Omit<Setup, 'resumableExpiryMs'>): Promise<FileStorage>;
  resumable(settings: S, setup: Omit<Setup, 'publicUrl' | 'documentAccess'>): Promise<ResumableStore>;
}

/**
 * Every driver, in the one place one is chosen; only the configured driver's modules (and SDK)
 * are loaded. A new driver is a folder beside local/, s3/ and cloudinary/ and one entry here (the
 * type requires it once its settings are in StorageConfig), and it passes storage/contract.test.ts.
 */
const DRIVERS: { [D in StorageConfig['driver']]: StorageDriver<Extract<StorageConfig, { driver: D }>> } = {
  local: {
    storage: async (_settings, { dataDir, publicUrl }) => new (await import('./local/index.js')).LocalStorage(path.join(dataDir, 'uploads'), publicUrl),
    resumable: onThisDisk,
  },
  s3: {
    storage: async (settings, { documentAccess }) => new (await import('./s3/index.js')).S3Storage(settings, documentAccess.mode),
    resumable: async (settings, { resumableExpiryMs }) => new (await import('./s3/resumable.js')).S3ResumableStore(settings, resumableExpiryMs),
  },
  cloudinary: {
    storage: async (settings, { documentAccess }) => new (await import('./cloudinary/index.js')).CloudinaryStorage(settings, documentAccess.mode),
    // An asset goes to Cloudinary in one upload: a resumable one waits on this instance's disk until it is whole.
    resumable: onThisDisk,
  },
};

/** DATA_DIR/resumable (local/resumable.ts): the bytes wait on this instance's disk. */
async function onThisDisk(_settings: StorageConfig, { dataDir, resumableExpiryMs }: Omit<Setup, 'publicUrl' | 'documentAccess'>): Promise<ResumableStore> {
  return (await import('./local/resumable.js')).createFileResumableStore(path.join(dataDir, 'resumable'), resumableExpiryMs);
}

// A method-shaped interface is bivariant in its settings, so any entry reads as a driver of StorageConfig.
const driverFor = (settings: StorageConfig): StorageDriver<StorageConfig> => DRIVERS[settings.driver] as StorageDriver<StorageConfig>;

/** The configured storage driver. */
export function createStorage(config: Pick<Config, 'storage' | 'dataDir' | 'publicUrl'> & Partial<Pick<Config, 'documentAccess'>>): Promise<FileStorage> {
  // Tests of a driver alone may leave it out: the specification's default, public.
  const documentAccess = config.documentAccess ?? { mode: 'public', linkSeconds: 60 };
  return driverFor(config.storage).storage(config.storage, { ...config, documentAccess });
}

/** Where the configured driver's resumable uploads wait until they are finished (uploads/resumable.ts). */
export function createResumableStore(config: Pick<Config, 'storage' | 'dataDir' | 'resumableExpiryMs'>): Promise<ResumableStore> {
  return driverFor(config.storage).resumable(config.storage, config);
}
