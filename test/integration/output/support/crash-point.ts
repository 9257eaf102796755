/**
 * The fault point of a crash-test harness process: with `spec` = `<label>:<n>` it
 * SIGKILLs the process the n-th time it reaches the named point; without one it
 * does nothing.
 */
export function crashPoint(spec: string | undefined): (label: string) => void {
  if (!spec) return () => undefined;
  const [target, nth] = spec.split(':');
  let seen = 0;
  return (label) => {
    if (label === target && ++seen === Number(nth)) process.kill(process.pid, 'SIGKILL');
  };
}
