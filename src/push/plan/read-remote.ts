import { API_ERROR_CODES, type ApiObject, type HintContext, hintFor, isApiError } from '../../api/index.js';
import { PushReadError } from '../errors.js';
import type { InboxInfo } from './build-desired-state.js';
import { type HolidayForm, type ProfileForm, remoteHolidayForm, remoteProfileForm } from './normalize.js';
import type { RemoteObject } from './plan-types.js';
import type { PushApi } from './push-api.js';

export interface RemoteState {
  businessHours?: RemoteObject<ProfileForm>[];
  holidays?: RemoteObject<HolidayForm>[];
}

/**
 * Hints of a failed read. A 403 here is a partner token, not a role: reads are
 * open to any teammate, and all ten of these operations are PAT only (API
 * document, Other operations). A 401 takes the table's hint; other codes need none.
 */
const READ_HINTS: HintContext = {
  own: { [API_ERROR_CODES.forbidden]: 'business hours and holidays need a personal access token' },
  generic: [API_ERROR_CODES.unauthorized],
};

/** A read failure in words people can act on. */
async function reading<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isApiError(error)) throw error;
    const api = error.apiMessage ? `: ${error.apiMessage}` : '';
    const hint = hintFor(error, READ_HINTS);
    throw new PushReadError(`cannot read ${what} (${error.status ?? error.code}${api})${hint ? ` (${hint})` : ''}`, {
      cause: error,
    });
  }
}

const withId = (raw: ApiObject[]) => raw.filter((r) => r.id !== undefined && r.id !== null);

/** GET /inboxes, reduced to id and name (for resolving `inbox:` references and for messages). */
export async function readInboxes(api: Pick<PushApi, 'listInboxes'>): Promise<InboxInfo[]> {
  return reading('the inboxes', async () => {
    const out: InboxInfo[] = [];
    for await (const inbox of api.listInboxes()) {
      out.push({ id: String(inbox.id), name: typeof inbox.name === 'string' ? inbox.name : String(inbox.id) });
    }
    return out;
  });
}

/** The live objects of the managed kinds, in normalized form. */
export async function readRemote(
  api: PushApi,
  kinds: { businessHours: boolean; holidays: boolean },
): Promise<RemoteState> {
  const state: RemoteState = {};
  if (kinds.businessHours) {
    const raw = await reading('the business-hours profiles', () => api.listBusinessHours());
    state.businessHours = withId(raw).map((r) => ({ id: String(r.id), form: remoteProfileForm(r) }));
  }
  if (kinds.holidays) {
    const raw = await reading('the holidays', () => api.listHolidays());
    state.holidays = withId(raw).map((r) => ({ id: String(r.id), form: remoteHolidayForm(r) }));
  }
  return state;
}
