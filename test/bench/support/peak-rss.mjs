import { readFileSync } from 'node:fs';

/**
 * This process's own peak RSS in MB: VmHWM, the high-water mark of its memory
 * since it started. Not `process.resourceUsage().maxRSS`: Linux carries into it
 * the RSS of the parent at the fork that started the process (libuv forks, then
 * execs), so a child started by a parent holding 400 MB reports at least 400 MB
 * whatever it uses itself. (The scale bench's first S3-state run reported
 * 386–425 MB that way: its parent had just read the 363 MB state to put it in
 * the bucket.) Where /proc is missing, maxRSS is all there is.
 * @returns {number}
 */
export function peakRssMb() {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // no /proc: fall through
  }
  return process.resourceUsage().maxRSS / 1024;
}
