import { fileURLToPath } from 'node:url';
import { checkoutChanges, checkoutSnapshot } from './checkout-snapshot.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Vitest global setup: fails the run when the tests created, changed or removed
 * anything a user's run leaves in the checkout (USER_PATHS: ./out, ./demo, …). Those may
 * exist beforehand (a user followed the quick start); the suite must pass with them.
 */
export default function setup(): () => void {
  const before = checkoutSnapshot(ROOT);
  return () => {
    const changes = checkoutChanges(before, checkoutSnapshot(ROOT));
    if (changes.length > 0) {
      // Vitest reports an error thrown here but still exits 0: set the exit code too.
      process.exitCode = 1;
      throw new Error(`tests touched what a user's run leaves in the checkout: ${changes.join(', ')}`);
    }
  };
}
