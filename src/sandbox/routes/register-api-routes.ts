import type { FastifyInstance } from 'fastify';
import { registerContactRoutes } from './contact-routes.js';
import { registerActionRoutes } from './conversations/action-routes.js';
import { registerBatchRoutes } from './conversations/batch-routes.js';
import { registerConversationRoutes } from './conversations/conversation-routes.js';
import { registerMergeRoutes } from './conversations/merge-routes.js';
import { registerSearchRoutes } from './conversations/search-routes.js';
import { registerThreadRoutes } from './conversations/thread-routes.js';
import { registerCustomFieldRoutes } from './custom-field-routes.js';
import { registerInboxRoutes } from './inbox-routes.js';
import { registerMeRoutes } from './me-routes.js';
import { registerReportRoutes } from './report-routes.js';
import type { RouteContext } from './route-context.js';
import { registerSettingsRoutes } from './settings-routes.js';

/** Every /v1 operation the sandbox serves except business hours and holidays (registered beside it). */
export function registerApiRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerMeRoutes(app, ctx);
  registerInboxRoutes(app, ctx);
  registerSettingsRoutes(app, ctx);
  registerContactRoutes(app, ctx);
  registerSearchRoutes(app, ctx);
  registerConversationRoutes(app, ctx);
  registerThreadRoutes(app, ctx);
  registerActionRoutes(app, ctx);
  registerMergeRoutes(app, ctx);
  registerBatchRoutes(app, ctx);
  registerReportRoutes(app, ctx);
  registerCustomFieldRoutes(app, ctx);
}
