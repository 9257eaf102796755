import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { s3Sdk } from './s3-sdk.js';

/** Where and how to reach an S3 (or S3-compatible) bucket: the settings the output and the state share. */
export interface S3ConnectionOptions {
  region: string;
  /** S3-compatible endpoint (MinIO, s3rver, R2...). */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** `when_required` for S3-compatible servers that reject the SDK's default checksums. */
  checksum?: 'when_supported' | 'when_required';
  /** Attempts per HTTP request inside the SDK. @default 5 */
  maxAttempts?: number;
}

/**
 * The one place an S3 client is built. Credentials come from the standard AWS
 * provider chain (env, shared config, SSO, web identity, instance/container
 * roles); none is ever logged. `extra` is for tests (request handlers, middleware).
 */
export function createS3Client(options: S3ConnectionOptions, extra: Partial<S3ClientConfig> = {}): S3Client {
  const checksum = options.checksum === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
  const { S3Client } = s3Sdk();
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    maxAttempts: options.maxAttempts ?? 5,
    requestChecksumCalculation: checksum,
    responseChecksumValidation: checksum,
    ...extra,
  });
}
