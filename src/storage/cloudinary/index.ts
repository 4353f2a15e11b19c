// PLACEHOLDER: replaced by the real driver.
import type { StorageConfig } from '../../config.js';
import type { FileStorage } from '../types.js';

export class CloudinaryStorage implements FileStorage {
  readonly driver = 'cloudinary';
  constructor(readonly settings: Extract<StorageConfig, { driver: 'cloudinary' }>) {}
  async put(): Promise<{ url: string }> { throw new Error('not implemented'); }
  async remove(): Promise<void> { throw new Error('not implemented'); }
  async check(): Promise<void> { throw new Error('not implemented'); }
}
