import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import type { StorageConfig } from '../../config.js';
import { DOCUMENTS_PREFIX, dispositionFor } from '../../domain/documents.js';
import { type FileStorage, type IncompleteWrite, type ListableStorage, type ObjectLocation, type StoredObject, ObjectExistsError, ObjectMissingError, objectKey } from '../types.js';

export type S3Settings = Extract<StorageConfig, { driver: 's3' }>;

/** Under /readyz's own 3 s bound, so the answer names the store; at start-up it is the only bound. */
const CHECK_TIMEOUT_MS = 2500;
const PART_BYTES = 5 * 1024 * 1024;

/** The S3 client settings of the driver, shared with the resumable uploads' S3 store (s3/resumable.ts). */
export function s3ClientConfig(settings: S3Settings): S3ClientConfig {
  return {
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // An unreachable store fails within seconds instead of hanging the request.
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 3000, socketTimeout: 60_000 },
    // Checksums only where S3 demands them: many S3-compatible stores reject aws-chunked trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/**
 * Objects in an S3 bucket (AWS or any S3-compatible store), public at `<publicUrl>/<key>`.
 * Bodies go up in 5 MiB parts, two in flight, so an upload holds about 20 MiB whatever its size.
 */
export class S3Storage implements FileStorage, ListableStorage {
  readonly driver = 's3';
  private readonly client: S3Client;

  /** @param access DOCUMENT_ACCESS: private objects get a private Cache-Control (never a public ACL in either mode: the bucket policy decides). */
  constructor(
    readonly settings: S3Settings,
    private readonly access: 'public' | 'private' = 'public',
  ) {
    this.client = new S3Client(s3ClientConfig(settings));
  }

  async put(location: ObjectLocation, body: Readable, contentType: string, filename?: string, detectedType?: string | null): Promise<{ url: string }> {
    const key = objectKey(location);
    // Many S3-compatible stores ignore If-None-Match; asking first also refuses before a byte is read.
    if (await this.exists(key)) throw new ObjectExistsError(key);
    const upload = new Upload({
      client: this.client,
      queueSize: 2,
      partSize: PART_BYTES,
      params: {
        Bucket: this.settings.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        ContentDisposition: filename ? dispositionFor(contentType, filename, detectedType ?? null) : undefined,
        // Never overwritten, so caches may keep a public one; a private one is fetched through short-lived signed addresses only.
        CacheControl: this.access === 'private' ? 'private, no-cache' : 'public, max-age=31536000, immutable',
        // lib-storage passes it on to PutObject and to CompleteMultipartUpload alike.
        IfNoneMatch: '*',
      },
    });
    try {
      await upload.done();
    } catch (err) {
      // A broken or oversized body is the caller's failure, passed on as it is.
      if (err === body.errored) throw err;
      if (isTaken(err)) throw new ObjectExistsError(key);
      throw failure(`S3 upload of ${key} failed`, err);
    }
    return { url: `${this.settings.publicUrl}/${key.split('/').map(encodeURIComponent).join('/')}` };
  }

  async open({ key }: { key: string }): Promise<Readable> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return got.Body as Readable;
    } catch (err) {
      if (statusOf(err) === 404 || (err as { name?: string }).name === 'NoSuchKey') throw new ObjectMissingError(key);
      throw failure(`S3 read of ${key} failed`, err);
    }
  }

  /** A presigned GET (or HEAD: SigV4 signs the method) of the object, valid for `seconds`; signed locally, no request to the store. */
  async signedAddress({ key }: { key: string }, seconds: number, method: 'GET' | 'HEAD' = 'GET'): Promise<string> {
    const input = { Bucket: this.settings.bucket, Key: key };
    return getSignedUrl(this.client, method === 'HEAD' ? new HeadObjectCommand(input) : new GetObjectCommand(input), { expiresIn: seconds });
  }

  async remove(location: ObjectLocation): Promise<void> {
    await this.removeObject(objectKey(location));
  }

  async delete({ key }: { key: string }): Promise<void> {
    await this.removeObject(key);
  }

  async *listObjects(prefix: string): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      const page = await this.client
        .send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: prefix, ContinuationToken: token }))
        .catch((err: unknown) => {
          throw failure(`S3 listing of ${this.settings.bucket}/${prefix}`, err);
        });
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, modifiedAt: o.LastModified ?? new Date(0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Multipart uploads begun and never completed or aborted (an instance that crashed mid-upload):
   * their parts are stored, and billed, until aborted. lib-storage aborts the ones that fail in a running process.
   * Only the driver's own, under DOCUMENTS_PREFIX: resumable uploads keep theirs open for hours (their expiry removes them).
   */
  async *listIncomplete(): AsyncIterable<IncompleteWrite> {
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.client
        .send(new ListMultipartUploadsCommand({ Bucket: this.settings.bucket, Prefix: DOCUMENTS_PREFIX, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }))
        .catch((err: unknown) => {
          throw failure(`S3 listing of incomplete multipart uploads in ${this.settings.bucket}`, err);
        });
      for (const u of page.Uploads ?? []) {
        const { Key: key, UploadId: uploadId } = u;
        if (!key || !uploadId) continue;
        yield {
          name: `${key} (multipart upload ${uploadId})`,
          startedAt: u.Initiated ?? new Date(0),
          remove: async () => {
            await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.settings.bucket, Key: key, UploadId: uploadId })).catch((err: unknown) => {
              throw failure(`S3 abort of the multipart upload ${uploadId} of ${key}`, err);
            });
          },
        };
      }
      [keyMarker, uploadIdMarker] = page.IsTruncated ? [page.NextKeyMarker, page.NextUploadIdMarker] : [undefined, undefined];
    } while (keyMarker);
  }

  async removeObject(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
    } catch (err) {
      throw failure(`S3 delete of ${key} failed`, err);
    }
  }

  async check(): Promise<void> {
    const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }), { abortSignal: signal });
    } catch (err) {
      const where = `S3 bucket ${this.settings.bucket}${this.settings.endpoint ? ` at ${this.settings.endpoint}` : ''}`;
      if (signal.aborted) throw new Error(`${where} did not answer within ${CHECK_TIMEOUT_MS / 1000} s`);
      throw failure(where, err);
    }
  }

  private async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return true;
    } catch (err) {
      const status = statusOf(err);
      // 403: without s3:ListBucket a missing key looks like this; the conditional write still decides.
      if (status === 404 || status === 403) return false;
      throw failure(`S3 upload of ${key} failed`, err);
    }
  }
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

/** 412 PreconditionFailed: If-None-Match found the key; 409 ConditionalRequestConflict: a concurrent write to it won. */
function isTaken(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || statusOf(err) === 412;
}

/** An Error whose message says what failed and why (the upload's 500 answer and /readyz show it). */
function failure(what: string, err: unknown): Error {
  return new Error(`${what}: ${describe(err)}`, { cause: err });
}

function describe(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) return err.errors.map(describe).join('; ');
  const e = (err ?? {}) as { message?: string; name?: string; code?: string };
  // Answers without a body (HEAD) come back as "UnknownError"; their name (NotFound, Forbidden) says more.
  const message = e.message && e.message !== 'UnknownError' ? e.message : (e.code ?? e.name ?? 'unknown error');
  const status = statusOf(err);
  return status ? `${message} (HTTP ${status})` : message;
}
