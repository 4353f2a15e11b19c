import path from 'node:path';
import type { Config } from '../config.js';
import type { FileStorage } from './types.js';

export type { FileStorage } from './types.js';

/** The configured storage driver. Only the chosen driver's code (and SDK) is loaded. */
export async function createStorage(config: Config): Promise<FileStorage> {
  const storage = config.storage;
  switch (storage.driver) {
    case 'local': {
      const { LocalStorage } = await import('./local/index.js');
      return new LocalStorage(path.join(config.dataDir, 'uploads'), config.publicUrl);
    }
    case 's3': {
      const { S3Storage } = await import('./s3/index.js');
      return new S3Storage(storage);
    }
    case 'cloudinary': {
      const { CloudinaryStorage } = await import('./cloudinary/index.js');
      return new CloudinaryStorage(storage);
    }
  }
}
