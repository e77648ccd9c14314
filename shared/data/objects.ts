import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '#shared/core/config.ts';

// The mail bucket (S3): inbound messages as SES stores them, and the parts kept from them
// (attachments). Locally the runtime serves a stand-in with S3's REST shape (local/objects.ts),
// so this very client and its presigned URLs work against it.

let client: S3Client | undefined;
const s3 = () =>
  (client ??= new S3Client({
    region: config.region,
    ...(config.s3Endpoint
      ? { endpoint: config.s3Endpoint, forcePathStyle: true, credentials: config.localCredentials }
      : {}),
    // Whole buffers with a known length: no streaming checksums, which the stand-in does not speak.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  }));

/** How long a link to a stored part lives. */
export const LINK_SECONDS = 300;

export const objectsRepo = {
  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await s3().send(
      new PutObjectCommand({ Bucket: config.mailBucket, Key: key, Body: body, ContentType: contentType }),
    );
  },

  async get(key: string, bucket = config.mailBucket): Promise<Buffer | null> {
    try {
      const r = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (e) {
      if ((e as { name?: string }).name === 'NoSuchKey') return null;
      throw e;
    }
  },

  async remove(keys: string[]): Promise<void> {
    await Promise.all(keys.map((Key) => s3().send(new DeleteObjectCommand({ Bucket: config.mailBucket, Key }))));
  },

  /** A presigned GET that downloads the object under `filename` and expires after LINK_SECONDS. */
  link(key: string, filename: string, inline: boolean): Promise<string> {
    const safe = filename.replace(/[^\w.\- ]/g, '_');
    return getSignedUrl(
      s3(),
      new GetObjectCommand({
        Bucket: config.mailBucket,
        Key: key,
        ResponseContentDisposition: `${inline ? 'inline' : 'attachment'}; filename="${safe}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      }),
      { expiresIn: LINK_SECONDS },
    );
  },
};
