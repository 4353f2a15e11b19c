import http from 'node:http';
import https from 'node:https';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type UploadApiOptions, type UploadApiResponse, v2 as cloudinary } from 'cloudinary';
import type { StorageConfig } from '../../config.js';
import { type FileStorage, type ObjectLocation, ObjectExistsError, ObjectMissingError, locationOf, objectKey } from '../types.js';
import { nowMs } from '../../clock.js';

type CloudinarySettings = Extract<StorageConfig, { driver: 'cloudinary' }>;

/** Under /readyz's own 3 s bound, so the answer names the store; at start-up it is the only bound. */
const CHECK_TIMEOUT_MS = 2500;
/** Idle time allowed on a deletion's connection: the void's request waits for it (the reconciler retries a failure). */
const DELETE_TIMEOUT_MS = 10_000;
/** Idle time allowed on an upload's connection (Cloudinary answers only once it has processed the file). */
const UPLOAD_TIMEOUT_MS = 120_000;

/** How long the signed address the service's own reads (ZIP, checks) fetch a private asset from lasts: until its answer starts. */
const OPEN_LINK_SECONDS = 60;

/** Extensions Cloudinary's detection files as images (PDF included) or videos (audio included); anything else is raw. */
const IMAGE_EXTENSIONS = new Set(
  'jpg jpeg jpe png gif webp avif bmp tif tiff ico pdf ps eps ai psd svg heic heif jp2 jxl jxr wdp tga arw cr2 cr3 nef dng djvu'.split(' '),
);
const VIDEO_EXTENSIONS = new Set('mp4 m4v mov webm ogv flv 3gp 3g2 wmv mpeg mpg mkv avi mts m2ts mp3 wav aac aiff flac m4a ogg opus amr wma'.split(' '));

/**
 * Assets in a Cloudinary cloud, uploaded with the specification's properties (folder, public id,
 * resource type auto, public access); `secure_url` is the address. Every call carries its own
 * credentials and prefix, so the SDK's global (environment) config is never used.
 */
export class CloudinaryStorage implements FileStorage {
  readonly driver = 'cloudinary';
  /** Where recent uploads landed (public id, resource type), so a discarded one is removed in one call. */
  private readonly placed = new Map<string, { publicId: string; resourceType: string; type: string }>();

  /** @param access DOCUMENT_ACCESS: private assets are uploaded with `type: private`, delivered only through signed, expiring download addresses. */
  constructor(
    readonly settings: CloudinarySettings,
    private readonly access: 'public' | 'private' = 'public',
  ) {}

  async put(location: ObjectLocation, body: Readable, _contentType: string): Promise<{ url: string }> {
    const key = objectKey(location);
    // A fresh agent per upload: destroying it is the only way to cut the SDK's request when the body fails.
    const agent = this.agent();
    let upload!: Writable;
    const answer = new Promise<UploadApiResponse>((resolve, reject) => {
      upload = cloudinary.uploader.upload_stream(
        {
          ...this.auth(agent),
          folder: location.folder,
          public_id: publicIdOf(location),
          resource_type: 'auto',
          // Private: the original answers only a signed download address (private_download_url), never its plain secure_url.
          ...(this.access === 'private' ? { type: 'private' } : { access_mode: 'public' }),
          overwrite: false,
          // The SDK labels every file part application/octet-stream: Cloudinary types a file by its content and
          // this name, and serves a raw one by its public id's extension.
          filename: location.extension ? `${location.publicName}.${location.extension}` : location.publicName,
          timeout: UPLOAD_TIMEOUT_MS,
        } satisfies UploadApiOptions,
        (err, result) => (err || !result ? reject(err ?? new Error('no answer')) : resolve(result)),
      );
    });
    answer.catch(() => {}); // awaited below, unless the body fails first
    const sending = pipeline(body, upload);
    sending.catch(() => {});
    let result: UploadApiResponse;
    try {
      // An answer can come before the body is sent (refused connection); waiting for the body would then hang.
      await Promise.race([sending, answer]);
      await sending;
      result = await answer;
    } catch (err) {
      // A broken or oversized body is the caller's failure, passed on as it is.
      if (err === body.errored) throw err;
      upload.destroy();
      throw new Error(`Cloudinary upload of ${key} failed: ${describe(err)}`);
    } finally {
      agent.destroy();
    }
    // overwrite: false answers a taken public id with the asset that holds it.
    if (result.existing) throw new ObjectExistsError(key);
    this.remember(key, { publicId: result.public_id, resourceType: result.resource_type, type: result.type ?? 'upload' });
    return { url: result.secure_url };
  }

  /**
   * Cloudinary has no read API for an asset's bytes: a public asset's are fetched from its secure URL,
   * as anyone would; a private one's (DOCUMENT_ACCESS=private) from a signed download address.
   */
  async open({ key, url }: { key: string; url: string }): Promise<Readable> {
    const asset = assetOf(url);
    const from = asset && asset.type !== 'upload' ? await this.signedAddress({ key, url }, OPEN_LINK_SECONDS) : url;
    // Bounded until the answer's headers arrive; the body then streams at the reader's pace.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('no answer within 10 s')), 10_000);
    const res = await fetch(from, { signal: abort.signal })
      .catch((err: unknown) => {
        throw new Error(`Cloudinary read of ${key} failed: ${describe(err)}`);
      })
      .finally(() => clearTimeout(timer));
    if (res.status === 404) throw new ObjectMissingError(key);
    if (!res.ok || !res.body) throw new Error(`Cloudinary read of ${key} failed: HTTP ${res.status}`);
    return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  }

  /**
   * A signed download address of the asset (the Upload API's `download`, signed with the API secret)
   * that expires after `seconds`: Cloudinary's way to deliver a private original. The record's
   * secure URL says where the asset is (resource type, delivery type, public id, format).
   */
  signedAddress({ key, url }: { key: string; url: string }, seconds: number): Promise<string> {
    const asset = assetOf(url);
    if (!asset) return Promise.reject(new Error(`Cloudinary address of ${key} is not an asset's secure URL: ${url}`));
    // Signed locally, without a request to Cloudinary; the SDK reads the credentials from the options (its types leave them out).
    const options = {
      cloud_name: this.settings.cloudName,
      api_key: this.settings.apiKey,
      api_secret: this.settings.apiSecret,
      upload_prefix: this.prefix,
      resource_type: asset.resourceType,
      type: asset.type,
      expires_at: Math.floor(nowMs() / 1000) + seconds,
    };
    return Promise.resolve(cloudinary.utils.private_download_url(asset.publicId, asset.format, options));
  }

  async remove(location: ObjectLocation): Promise<void> {
    const key = objectKey(location);
    const publicId = `${location.folder}/${publicIdOf(location)}`;
    // Documents stored before a switch to private stay of type upload: both are tried.
    const types = this.access === 'private' ? ['private', 'upload'] : ['upload'];
    const candidates = this.placed.get(key)
      ? [this.placed.get(key)!]
      : types.flatMap((type) => (['image', 'video', 'raw'] as const).map((resourceType) => ({ publicId, resourceType, type })));
    for (const { publicId: id, resourceType, type } of candidates) {
      const agent = this.agent();
      try {
        const res = (await cloudinary.uploader.destroy(id, { ...this.auth(agent), resource_type: resourceType, type })) as { result?: string };
        if (res.result === 'ok') break;
      } catch (err) {
        throw new Error(`Cloudinary delete of ${id} failed: ${describe(err)}`);
      } finally {
        agent.destroy();
      }
    }
    this.placed.delete(key);
  }

  /**
   * The asset's resource type and public id are read from its secure URL (an image's or video's
   * id without its format; a raw file's with its extension); `invalidate` purges the CDN's copies,
   * so the address stops answering there too. A URL of another shape falls back to the key.
   */
  async delete({ key, url }: { key: string; url: string }): Promise<void> {
    const asset = assetOf(url);
    if (!asset) return this.remove(locationOf(key));
    const agent = this.agent();
    // The SDK reads `timeout` (ms of idle connection) from the options, though its types leave it out.
    const bounded = { ...this.auth(agent), timeout: DELETE_TIMEOUT_MS };
    try {
      const res = (await cloudinary.uploader.destroy(asset.publicId, { ...bounded, resource_type: asset.resourceType, type: 'upload', invalidate: true })) as {
        result?: string;
      };
      if (res.result !== 'ok' && res.result !== 'not found') throw new Error(`answered ${JSON.stringify(res.result)}`);
    } catch (err) {
      throw new Error(`Cloudinary delete of ${asset.publicId} failed: ${describe(err)}`);
    } finally {
      agent.destroy();
    }
    this.placed.delete(key);
  }

  async check(): Promise<void> {
    const agent = this.agent();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      agent.destroy();
    }, CHECK_TIMEOUT_MS);
    try {
      await cloudinary.api.ping(this.auth(agent));
    } catch (err) {
      // Rate-limited (the Admin API allows a few hundred calls an hour) still means reachable and signed in.
      if (statusOf(err) === 420 || statusOf(err) === 429) return;
      const why = timedOut ? `did not answer within ${CHECK_TIMEOUT_MS / 1000} s` : describe(err);
      throw new Error(`Cloudinary cloud ${this.settings.cloudName}: ${why}`);
    } finally {
      clearTimeout(timer);
      agent.destroy();
    }
  }

  private auth(agent: http.Agent) {
    return {
      cloud_name: this.settings.cloudName,
      api_key: this.settings.apiKey,
      api_secret: this.settings.apiSecret,
      upload_prefix: this.prefix,
      agent,
    };
  }

  private get prefix(): string {
    return this.settings.uploadPrefix ?? 'https://api.cloudinary.com';
  }

  /** The SDK picks http or https once, from the environment; an agent of the prefix's protocol makes it follow ours. */
  private agent(): http.Agent {
    return this.prefix.startsWith('http:') ? new http.Agent() : new https.Agent();
  }

  private remember(key: string, where: { publicId: string; resourceType: string; type: string }): void {
    this.placed.set(key, where);
    if (this.placed.size > 256) this.placed.delete(this.placed.keys().next().value!);
  }
}

/**
 * The public id inside the folder: the public name, plus the extension for a raw file, since
 * Cloudinary gives images and videos theirs (format) but a raw file only the one in its id.
 */
function publicIdOf(location: ObjectLocation): string {
  const ext = location.extension?.toLowerCase();
  const media = ext !== undefined && (IMAGE_EXTENSIONS.has(ext) || VIDEO_EXTENSIONS.has(ext));
  return location.extension && !media ? `${location.publicName}.${location.extension}` : location.publicName;
}

/**
 * Where an asset is, read from its secure URL
 * (`<origin>/<cloud>/<resource type>/<type>/[s--<signature>--/][v<version>/]<public id>[.<format>]`):
 * images and videos carry their format after the public id; a raw file's extension is part of its id.
 */
interface AssetAddress {
  resourceType: 'image' | 'video' | 'raw';
  type: 'upload' | 'private' | 'authenticated';
  publicId: string;
  format: string;
}

function assetOf(url: string): AssetAddress | null {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  const m = /^\/[^/]+\/(image|video|raw)\/(upload|private|authenticated)\/(?:s--[^/]+--\/)?(?:v\d+\/)?(.+)$/.exec(path);
  if (!m) return null;
  const [, resourceType, type, rest] = m as unknown as [string, AssetAddress['resourceType'], AssetAddress['type'], string];
  if (resourceType === 'raw') return { resourceType, type, publicId: rest, format: '' };
  const dot = rest.lastIndexOf('.');
  return dot > rest.lastIndexOf('/') ? { resourceType, type, publicId: rest.slice(0, dot), format: rest.slice(dot + 1) } : { resourceType, type, publicId: rest, format: '' };
}

/** The SDK rejects with an Error (network), `{message, http_code}` (Upload API) or `{error: {message, http_code}}` (Admin API). */
function statusOf(err: unknown): number | undefined {
  const e = err as { http_code?: number; error?: { http_code?: number } } | null;
  return e?.error?.http_code ?? e?.http_code;
}

function describe(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) return err.errors.map(describe).join('; ');
  const e = (err ?? {}) as { message?: unknown; code?: string; error?: { message?: unknown } };
  const message = [e.error?.message, e.message, e.code].find((m) => typeof m === 'string' && m) as string | undefined;
  const status = statusOf(err);
  return `${message ?? 'unknown error'}${status && !(err instanceof Error) ? ` (HTTP ${status})` : ''}`;
}
