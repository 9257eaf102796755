import { join } from 'node:path';
import type { Logger } from '../../log.js';
import { createLocalSink } from './local-sink.js';
import { createS3Sink } from './s3-sink.js';
import type { FaultPoint, Sink } from './sink.js';

/**
 * What the sinks read of the config's `destination` block, declared here so that the output
 * layer imports nothing of the config's (the parsed block is given as it is).
 */
export type SinkSettings =
  | { type: 'local'; path: string; prefix: string }
  | {
      type: 's3';
      bucket: string;
      prefix: string;
      region: string;
      endpoint?: string | undefined;
      force_path_style: boolean;
      checksum: 'when_supported' | 'when_required';
    };

/** Builds the configured sink; keys given to it are relative to `destination.prefix`. */
export function createSink(config: SinkSettings, logger: Logger, options: { faultPoint?: FaultPoint } = {}): Sink {
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
