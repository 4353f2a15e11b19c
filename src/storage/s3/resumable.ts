import type { Readable } from 'node:stream';
import { S3Store } from '@tus/s3-store';
import type { ResumableStore } from '../types.js';
import { type S3Settings, s3ClientConfig } from './index.js';

/** Where the tus store's objects live in the bucket: apart from the documents (DOCUMENTS_PREFIX), which the reconciler looks after. */
export const RESUMABLE_PREFIX = 'resumable/';

type KeyedInput = { Key?: string; Prefix?: string; Delete?: { Objects?: { Key?: string }[] } };
const prefixed = (key: string) => (key.startsWith(RESUMABLE_PREFIX) ? key : RESUMABLE_PREFIX + key);

/**
 * @tus/s3-store on the storage driver's bucket and client settings: each tus upload is an S3
 * multipart upload (a part per PATCH of 5 MiB or more; a shorter tail waits as `<id>.part`) with
 * its description in `<id>.info`, all under RESUMABLE_PREFIX. Completing the last part assembles
 * `<id>`, which the completion reads into the document's own key and then removes.
 */
export class S3ResumableStore extends S3Store implements ResumableStore {
  readonly datastore = this;

  constructor(settings: S3Settings, expirationPeriodInMilliseconds: number) {
    super({
      s3ClientConfig: { ...s3ClientConfig(settings), bucket: settings.bucket },
      expirationPeriodInMilliseconds,
      // Expiry goes by the multipart uploads' start (deleteExpired), not by bucket lifecycle rules on tags.
      useTags: false,
      // No cache of `<id>.info`: another instance may finish or expire the upload, and a stale copy
      // would then report it complete. One small GET per request instead.
      cache: { get: async () => undefined, set: async () => {}, delete: async () => {} },
    });
    // @tus/s3-store keys objects by the bare upload id; every request it makes is moved under the prefix here.
    this.client.middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as KeyedInput;
        if (input.Key !== undefined) input.Key = prefixed(input.Key);
        for (const o of input.Delete?.Objects ?? []) if (o.Key !== undefined) o.Key = prefixed(o.Key);
        if (context.commandName === 'ListMultipartUploadsCommand') input.Prefix = RESUMABLE_PREFIX;
        return next(args);
      },
      { step: 'initialize', name: 'resumablePrefix' },
    );
  }

  async assembled(id: string): Promise<{ body: Readable }> {
    return { body: (await this.read(id)) as Readable };
  }

  /** tus's remove() stops at a multipart upload already completed (or aborted); this one removes whatever is left. */
  async discard(id: string): Promise<void> {
    const uploadId = await this.getMetadata(id).then(
      (m) => m['upload-id'],
      (err: unknown) => {
        if (!isMissing(err)) throw err;
        return undefined;
      },
    );
    if (uploadId) {
      await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: id, UploadId: uploadId }).catch((err: unknown) => {
        if (!isMissing(err)) throw err;
      });
    }
    await this.client.deleteObjects({ Bucket: this.bucket, Delete: { Objects: [{ Key: id }, { Key: this.infoKey(id) }, { Key: this.partKey(id, true) }] } });
    await this.clearCache(id);
  }
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchUpload' || e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
