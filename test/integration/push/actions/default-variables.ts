import { join } from 'node:path';

/**
 * The variables every step of a GitHub-hosted job gets ("Store information in variables",
 * Default environment variables), read from the job's github context. A workflow cannot
 * override them. GITHUB_TOKEN is not among them: steps get it only through `env:`.
 */
export function defaultVariables(github: Record<string, unknown>, runnerTemp: string): Record<string, string> {
  const text = (key: string) => String(github[key] ?? '');
  return {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: text('event_name'),
    GITHUB_EVENT_PATH: join(runnerTemp, 'event.json'),
    GITHUB_SHA: text('sha'),
    GITHUB_REF: text('ref'),
    GITHUB_REF_NAME: text('ref_name'),
    GITHUB_HEAD_REF: text('head_ref'),
    GITHUB_BASE_REF: text('base_ref'),
    GITHUB_REPOSITORY: text('repository'),
    GITHUB_REPOSITORY_OWNER: text('repository_owner'),
    GITHUB_RUN_ID: text('run_id'),
    GITHUB_RUN_NUMBER: text('run_number'),
    GITHUB_RUN_ATTEMPT: text('run_attempt'),
    GITHUB_JOB: text('job'),
    GITHUB_ACTOR: text('actor'),
    GITHUB_WORKFLOW: text('workflow'),
    GITHUB_SERVER_URL: text('server_url'),
    GITHUB_API_URL: text('api_url'),
    GITHUB_WORKSPACE: text('workspace'),
    RUNNER_TEMP: runnerTemp,
    RUNNER_OS: 'Linux',
  };
}
