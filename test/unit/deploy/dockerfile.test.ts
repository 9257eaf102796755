import { readFileSync } from 'node:fs';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';

const dockerfile = DockerfileParser.parse(readFileSync('Dockerfile', 'utf8'));
const instructions = dockerfile.getInstructions();

/** The instructions of the last stage (the image that ships). */
function finalStage(): Instruction[] {
  const froms = instructions.map((ins, i) => [ins, i] as const).filter(([ins]) => ins.getKeyword() === 'FROM');
  const last = froms.at(-1)?.[1] ?? 0;
  return instructions.slice(last);
}

/** The JSON-array (exec form) arguments of an instruction, or undefined for the shell form. */
function execForm(ins: Instruction | undefined): string[] | undefined {
  const text = ins?.getArgumentsContent()?.trim() ?? '';
  if (!text.startsWith('[')) return undefined;
  return JSON.parse(text) as string[];
}

function resolveArg(image: string): string {
  // FROM ${NODE_IMAGE}: resolve the global ARG's default.
  return image.replace(/\$\{?(\w+)\}?/g, (_, name: string) => {
    const arg = dockerfile.getInitialARGs().find((i) => i.getArgumentsContent()?.startsWith(`${name}=`));
    return arg?.getArgumentsContent()?.slice(name.length + 1) ?? '';
  });
}

describe('Dockerfile', () => {
  it('is multi-stage and ships Node 24 (LTS) slim in its final stage', () => {
    const froms = dockerfile.getFROMs();
    expect(froms.length).toBeGreaterThanOrEqual(2);
    const final = froms.at(-1);
    const image = resolveArg(final?.getImage() ?? '');
    expect(image).toMatch(/^node:24(\.\d+)*-[a-z]+-slim$/);
  });

  it('runs as a non-root user with /data as a volume', () => {
    const stage = finalStage();
    const users = stage.filter((i) => i.getKeyword() === 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)?.getArgumentsContent()?.split(':')[0];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    const volume = stage.find((i) => i.getKeyword() === 'VOLUME');
    expect(execForm(volume)).toEqual(['/data']);
  });

  it('has ENTRYPOINT/CMD in exec form (signals reach Node as PID 1) and a HEALTHCHECK on /healthz', () => {
    const stage = finalStage();
    expect(execForm(stage.find((i) => i.getKeyword() === 'ENTRYPOINT'))).toEqual(['helpdesk-sync']);
    expect(execForm(stage.find((i) => i.getKeyword() === 'CMD'))).toEqual(['daemon']);
    const health = stage.find((i) => i.getKeyword() === 'HEALTHCHECK');
    expect(health?.getArgumentsContent()).toMatch(/CMD \["node", "-e", ".*\/healthz/);
    expect(health?.getArgumentsContent()).not.toMatch(/curl|wget/);
  });

  it('holds no secret: no ENV or ARG with a token-like name, no copied config or state', () => {
    const tokenLike = /token|secret|password|passwd|credential|api_?key|access_?key|auth/i;
    for (const ins of instructions.filter((i) => ['ENV', 'ARG'].includes(i.getKeyword()))) {
      for (const name of (ins.getArgumentsContent() ?? '').match(/(?:^|\s)(\w+)(?==|\s|$)/g) ?? []) {
        expect(name.trim(), ins.getArgumentsContent() ?? undefined).not.toMatch(tokenLike);
      }
    }
    for (const copy of instructions.filter((i) => ['COPY', 'ADD'].includes(i.getKeyword()))) {
      expect(copy.getArgumentsContent()).not.toMatch(/helpdesk-sync\.yaml|\.sqlite|\.env\b|\.npmrc/);
    }
    const ignore = readFileSync('.dockerignore', 'utf8');
    expect(ignore).toMatch(/^config\/helpdesk-sync\.yaml$/m);
  });

  it('needs nothing an air-gapped builder cannot fetch: no `# syntax=` frontend, the base as a build argument', () => {
    expect(readFileSync('Dockerfile', 'utf8')).not.toMatch(/^#\s*syntax\s*=/im);
    for (const from of dockerfile.getFROMs()) expect(from.getImage()).toMatch(/^\$\{NODE_IMAGE\}$|^\w+$/);
  });

  it('creates the pack destination before npm pack writes to it', () => {
    const pack = instructions.find((i) => i.getKeyword() === 'RUN' && /npm pack/.test(i.getArgumentsContent() ?? ''));
    const text = pack?.getArgumentsContent() ?? '';
    const dest = /--pack-destination (\S+)/.exec(text)?.[1];
    expect(dest).toBeDefined();
    expect(text.indexOf(`mkdir -p ${dest}`)).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(`mkdir -p ${dest}`)).toBeLessThan(text.indexOf('npm pack'));
  });

  it('fails the build in the final stage unless better-sqlite3 opens, writes and reads a database', () => {
    const smoke = finalStage().find(
      (i) => i.getKeyword() === 'RUN' && /better-sqlite3/.test(i.getArgumentsContent() ?? ''),
    );
    const text = smoke?.getArgumentsContent() ?? '';
    expect(text).toMatch(/new D\(':memory:'\)/);
    expect(text).toMatch(/insert into/);
    expect(text).toMatch(/process\.exit\(1\)/);
  });
});
