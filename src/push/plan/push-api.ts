import type { HelpdeskApi } from '../../api/index.js';

/** The part of the API client push uses. */
export type PushApi = Pick<
  HelpdeskApi,
  | 'listInboxes'
  | 'listBusinessHours'
  | 'getBusinessHours'
  | 'createBusinessHours'
  | 'updateBusinessHours'
  | 'deleteBusinessHours'
  | 'listHolidays'
  | 'getHoliday'
  | 'createHoliday'
  | 'updateHoliday'
  | 'deleteHoliday'
>;
