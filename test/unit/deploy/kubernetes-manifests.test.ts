import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { CronJob } from 'kubernetes-models/batch/v1';
import { ConfigMap } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { parseConfigFile } from '../../../src/config/load.js';
import { accountsOfShard } from '../../../src/config/shard.js';

const DIR = 'deploy/kubernetes';

// Validators generated from Kubernetes' own OpenAPI object schemas (kubernetes-models).
const KINDS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'batch/v1/CronJob': CronJob,
  'apps/v1/Deployment': Deployment,
};

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked by the Kubernetes schemas, then read freely.
  [key: string]: any;
}

function manifests(): Manifest[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((doc) => {
        expect(doc.errors, file).toEqual([]);
        return { ...(doc.toJS() as Omit<Manifest, 'file'>), file } as Manifest;
      }),
    );
}

describe('deploy/kubernetes manifests', () => {
  const all = manifests();

  it('are valid Kubernetes objects', () => {
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const { file, ...object } of all) {
      const Model = KINDS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `${file}: ${object.apiVersion} ${object.kind} has a validator`).toBeDefined();
      expect(() => new (Model as NonNullable<typeof Model>)(object as never).validate(), file).not.toThrow();
    }
  });

  it('the validation refuses a broken object (it is not a no-op)', () => {
    const cron = all.find((m) => m.kind === 'CronJob' && m.file === 'cronjob.yaml') as Manifest;
    const { file: _file, ...object } = cron;
    const broken = structuredClone(object);
    broken.spec.concurrencyPolicy = 42;
    expect(() => new CronJob(broken as never).validate()).toThrow(/concurrencyPolicy/);
  });

  it('the CronJob runs one sync at a time, token from a Secret, state in S3, sized memory', () => {
    const cron = all.find((m) => m.kind === 'CronJob' && m.file === 'cronjob.yaml') as Manifest;
    expect(cron.spec.concurrencyPolicy).toBe('Forbid');
    const pod = cron.spec.jobTemplate.spec.template.spec;
    const [container] = pod.containers;
    expect(container.args).toEqual(['sync']);
    const token = container.env.find((e: { name: string }) => e.name === 'HELPDESK_TOKEN');
    expect(token.valueFrom.secretKeyRef).toMatchObject({ name: expect.any(String), key: expect.any(String) });
    // The benchmark's ~200 MB peak RSS fits the request with room below the limit.
    expect(container.resources.requests.memory).toBe('256Mi');
    expect(container.resources.limits.memory).toBe('512Mi');
    const config = all.find((m) => m.kind === 'ConfigMap' && m.file === cron.file) as Manifest;
    expect(config.data['helpdesk-sync.yaml']).toMatch(/state:\s*\n\s*path: s3:\/\//);
  });

  it('the Deployment probes /healthz and is scraped on /metrics', () => {
    const deployment = all.find((m) => m.kind === 'Deployment') as Manifest;
    const template = deployment.spec.template;
    expect(template.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9464',
      'prometheus.io/path': '/metrics',
    });
    const [container] = template.spec.containers;
    expect(container.args).toEqual(['daemon']);
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/healthz');
    const config = all.find((m) => m.kind === 'ConfigMap' && m.file === deployment.file) as Manifest;
    expect(config.data['helpdesk-sync.yaml']).toMatch(/listen: 0\.0\.0\.0:9464/);
    // No literal secret anywhere: tokens and keys come from Secrets.
    for (const m of all) {
      for (const e of m.spec?.template?.spec?.containers?.[0]?.env ?? []) expect(e.value, e.name).toBeUndefined();
    }
  });

  it('the accounts CronJob is an Indexed Job whose pods each sync one shard, their number said once in each place', () => {
    const cron = all.find((m) => m.kind === 'CronJob' && m.file === 'accounts-cronjob.yaml') as Manifest;
    const job = cron.spec.jobTemplate.spec;
    expect(job.completionMode).toBe('Indexed');
    expect(job.parallelism).toBe(job.completions);
    const [container] = job.template.spec.containers;
    expect(container.args).toEqual(['sync', '--shard', `$(JOB_COMPLETION_INDEX)/${job.completions}`]);
    // The config it mounts is one the connector accepts: every account a shard runs, its state in S3.
    const map = all.find((m) => m.kind === 'ConfigMap' && m.file === cron.file) as Manifest;
    const env = Object.fromEntries(container.env.map((e: { name: string }) => [e.name, 'x']));
    const parsed = parseConfigFile(parseYaml(map.data['helpdesk-sync.yaml']), 'accounts-cronjob.yaml', env);
    expect(parsed.several).toBe(true);
    for (const account of parsed.accounts)
      expect(account.state.path).toMatch(/^s3:\/\/.*\/[a-z]+\/helpdesk-sync\.sqlite$/);
    // Every token the accounts read comes from a Secret of the pod.
    for (const e of container.env) expect(e.valueFrom?.secretKeyRef, e.name).toBeDefined();
    // The shards together run every account, each in exactly one.
    const names = parsed.accounts.map((a) => a.account?.name ?? '');
    const shards = Array.from({ length: job.completions }, (_, index) =>
      accountsOfShard(parsed.accounts, { index, count: job.completions }).map((a) => a.account?.name),
    );
    expect(shards.flat().sort()).toEqual([...names].sort());
  });
});
