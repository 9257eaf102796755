import { conversations } from './streams/conversations.js';
import { messages } from './streams/messages.js';

/**
 * The scopes that hold one entry per conversation and so grow with the account,
 * as their streams declare them. The state database keeps them apart from the
 * other scopes, together per conversation and packed (docs/streams.md, "State
 * kept by the streams"), so a million conversations stay within a few hundred
 * bytes each; for the streams they are scopes like any other.
 */
export const CONVERSATION_SCOPES = {
  /** conversation id → fingerprint of its list item. */
  fingerprint: conversations.state.scope,
  /** conversation id → the fingerprint its thread was fetched at. */
  threadAt: messages.state.scope,
  /** conversation id → the row hashes of its thread (bytes, see src/streams/conversations/thread-state.ts). */
  thread: messages.state.also.thread,
} as const;
