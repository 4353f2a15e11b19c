// PLACEHOLDER: replaced by the real driver.
import type { StorageConfig } from '../../config.js';
import type { FileStorage } from '../types.js';

export class S3Storage implements FileStorage {
  readonly driver = 's3';
  constructor(readonly settings: Extract<StorageConfig, { driver: 's3' }>) {}
  async put(): Promise<{ url: string }> { throw new Error('not implemented'); }
  async remove(): Promise<void> { throw new Error('not implemented'); }
  async check(): Promise<void> { throw new Error('not implemented'); }
}
