/** `--name=value` from a bench's arguments (`npm run bench -- name --name=value`), else `fallback`. */
export function option(args: string[], name: string, fallback: string): string {
  const hit = args.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
}

/** A numeric `--name=N`, else `fallback`. */
export function numberOption(args: string[], name: string, fallback: number): number {
  return Number(option(args, name, String(fallback)));
}
