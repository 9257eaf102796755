import { column, strings } from '../columns.js';
import { defineStream } from '../stream-definition.js';

/** Contacts: the API has no contact list, so the contact embedded in each listed conversation. */
export const contacts = defineStream({
  name: 'contacts',
  read: { kind: 'conversation-scan' },
  tables: [
    {
      name: 'contacts',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'name'),
        column('email', 'string', { description: 'email address' }),
        column('avatar', 'string', { description: 'URI' }),
        ...strings('company', 'website', 'job_title', 'address'),
        column('should_display_image', 'bool'),
        column('notes'),
        column('conversations_count', 'int'),
      ],
      description: 'Contacts, taken from the contact embedded in conversations.',
      keys: 'scope',
      dbt: { resource: 'Contact', freshness: true },
    },
  ],
  /** contact id → fingerprint of the embedded contact. */
  state: { scope: 'fp:contacts', unit: 'contacts' },
  check: { probe: 'none', detail: 'read through the conversation list' },
  forbidden: { effect: 'fail' },
  verify: 'output-only',
  docs: {
    readFrom: 'the `contact` embedded in each listed conversation',
    incremental:
      "written when the contact's content hash changed, judged once per run on its first-listed copy; never tombstoned",
  },
});
