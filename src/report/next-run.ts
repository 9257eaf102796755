import nodeCron from 'node-cron';

/** When a cron expression (in `timezone`) next fires after now; undefined when none is set or it never fires. */
export function nextRunOf(expression: string | undefined, timezone: string): Date | undefined {
  if (!expression) return undefined;
  // A task that is never started: node-cron's own reading of the expression, nothing scheduled.
  const task = nodeCron.createTask(expression, () => undefined, { timezone });
  try {
    return task.getNextRuns(1)[0];
  } finally {
    void task.destroy();
  }
}
