import type { FastifyInstance } from 'fastify';
import { registerActionRoutes } from './action-routes.js';
import { registerBatchRoutes } from './batch-routes.js';
import { registerContactRoutes } from './contact-routes.js';
import { registerConversationRoutes } from './conversation-routes.js';
import { registerCustomFieldRoutes } from './custom-field-routes.js';
import { registerInboxRoutes } from './inbox-routes.js';
import { registerMeRoutes } from './me-routes.js';
import { registerMergeRoutes } from './merge-routes.js';
import { registerReportRoutes } from './report-routes.js';
import type { RouteContext } from './route-context.js';
import { registerSearchRoutes } from './search-routes.js';
import { registerSettingsRoutes } from './settings-routes.js';
import { registerThreadRoutes } from './thread-routes.js';

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
