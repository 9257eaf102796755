/**
 * The names the command line offers before a push command runs (`plan --format`, the kinds of
 * `state rm` / `state mv`): a second, light front of this layer, so that defining the commands
 * loads none of it.
 */
export { PUSH_STATE_KINDS } from './mappings/edit-push-state.js';

export const PLAN_FORMATS = ['text', 'json', 'markdown'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];
