import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The AWS SDK's S3 client, loaded when an S3 sink, state or client is first
 * built rather than when the CLI starts: about a fifth of a CPU-second per
 * process that a local destination never needs. The package is CommonJS, so
 * require() gives the very module an `import` would.
 */
export function s3Sdk(): typeof import('@aws-sdk/client-s3') {
  return require('@aws-sdk/client-s3');
}

/** lib-storage's multipart `Upload`, loaded the same way. */
export function s3Storage(): typeof import('@aws-sdk/lib-storage') {
  return require('@aws-sdk/lib-storage');
}
