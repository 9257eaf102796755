import { join } from 'node:path';
import type { DestinationConfig } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { createLocalSink } from './local-sink.js';
import { createS3Sink } from './s3-sink.js';
import type { FaultPoint, Sink } from './sink.js';

/** Builds the configured sink; keys given to it are relative to `destination.prefix`. */
export function createSink(config: DestinationConfig, logger: Logger, options: { faultPoint?: FaultPoint } = {}): Sink {
  if (config.type === 'local') {
    return createLocalSink({ root: join(config.path, config.prefix), faultPoint: options.faultPoint });
  }
  return createS3Sink({
    bucket: config.bucket,
    prefix: config.prefix,
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.force_path_style,
    checksum: config.checksum,
    logger,
  });
}
