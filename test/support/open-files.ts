import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files this process holds open under `dir`, as Linux names them
 * (`/proc/self/fd`): a file removed while open is named with " (deleted)".
 */
export function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(join('/proc/self/fd', fd));
      } catch {
        // Closed between the listing and the look (the listing's own handle among them).
        return '';
      }
    })
    .filter((target) => target.startsWith(`${dir}/`));
}
