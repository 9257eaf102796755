import { stringify } from 'yaml';

/** The source of the history tables `load` keeps with `load.history` (or the printed scripts build). */
export const DBT_HISTORY_SOURCE = 'helpdesk_history';
export const DBT_HISTORY_DIR = 'models/history/helpdesk';
export const STATUS_DURATIONS_MODEL = 'helpdesk__conversation_status_durations';

function sourcesYaml(): string {
  return stringify({
    version: 2,
    sources: [
      {
        name: DBT_HISTORY_SOURCE,
        description:
          'History tables of helpdesk-sync (load.history): one row per version of each key, valid from ' +
          'valid_from until valid_to (null while current).',
        schema: "{{ var('helpdesk_schema', target.schema) }}",
        tables: [
          {
            name: 'conversations_history',
            description: 'Every version of each conversation with the interval it was valid.',
            columns: [
              { name: '_account', description: 'the account the conversation belongs to', data_tests: ['not_null'] },
              { name: 'id', data_tests: ['not_null'] },
              { name: 'valid_from', description: "start of the interval (the conversation's updated_at)" },
              { name: 'valid_to', description: 'end of the interval; null while current' },
              { name: 'is_current', description: 'true for the version valid now' },
            ],
          },
        ],
      },
    ],
  });
}

function modelsYaml(): string {
  const column = (name: string, description: string, tests?: string[]) => ({
    name,
    description,
    ...(tests ? { data_tests: tests } : {}),
  });
  return stringify({
    version: 2,
    models: [
      {
        name: STATUS_DURATIONS_MODEL,
        description:
          'How long each conversation sat in each status: the sum of its history intervals per status, ' +
          'the current one counted until the model is built.',
        columns: [
          column('_account', 'the account of the conversation', ['not_null']),
          column('conversation_id', 'the conversation', ['not_null']),
          column('status', 'a status the conversation had'),
          column('versions', 'how many versions of the conversation had this status'),
          column('first_entered_at', 'when the conversation first had this status'),
          column('seconds', 'seconds spent in this status over all its intervals'),
          column('is_current_status', 'true for the status the conversation has now'),
        ],
      },
    ],
  });
}

/**
 * How long each conversation sat in each status: the sum of its intervals per
 * status, the current one counted until now, per account (two accounts may
 * share a conversation id). Plain SQL that DuckDB and
 * PostgreSQL run as it is (the tests do); on BigQuery use
 * `timestamp_diff(coalesce(valid_to, current_timestamp()), valid_from, second)`.
 */
function statusDurationsSql(): string {
  return [
    `-- ${STATUS_DURATIONS_MODEL}: seconds each conversation spent in each status, over its history`,
    'select',
    '    _account,',
    '    id as conversation_id,',
    '    status,',
    '    count(*) as versions,',
    '    min(valid_from) as first_entered_at,',
    '    sum(extract(epoch from coalesce(valid_to, current_timestamp)) - extract(epoch from valid_from)) as seconds,',
    '    bool_or(is_current) as is_current_status',
    `from {{ source('${DBT_HISTORY_SOURCE}', 'conversations_history') }}`,
    'group by _account, id, status',
    '',
  ].join('\n');
}

/** The history part of the dbt fragment, as relative path → content. */
export function historyDbtFiles(): Record<string, string> {
  return {
    [`${DBT_HISTORY_DIR}/_${DBT_HISTORY_SOURCE}__sources.yml`]: sourcesYaml(),
    [`${DBT_HISTORY_DIR}/_${DBT_HISTORY_SOURCE}__models.yml`]: modelsYaml(),
    [`${DBT_HISTORY_DIR}/${STATUS_DURATIONS_MODEL}.sql`]: statusDurationsSql(),
  };
}
