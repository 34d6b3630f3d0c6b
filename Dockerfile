# Switchboard as a container: the packed npm package, installed without dev dependencies, run by a
# non-root user with its data in a volume and its settings in SWITCHBOARD_* variables.
# No base image can be pulled where Switchboard is built, so test/package/package.test.ts builds
# this file without Docker (test/helpers/dockerfile.ts: every COPY and RUN of both stages, in
# folders standing for the stages' roots) and runs the last stage's ENV, USER, ENTRYPOINT, CMD and
# HEALTHCHECK from there.

FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles when no prebuilt binary can be fetched.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
# The build needs TypeScript, not the native module: no install scripts here, so better-sqlite3
# compiles once, in the install below.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The typed client, which the build turns into the console's browser modules (dist/web-client).
COPY scripts/build-web-client.mjs ./scripts/
COPY packages/client/src ./packages/client/src
# The same artifact as `npm pack` anywhere else, installed the way a user installs it.
# (npm pack does not make its destination folder.)
RUN mkdir /pkg /app \
 && npm pack --pack-destination /pkg \
 && cd /app \
 && echo '{"name":"switchboard-image","private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /pkg/switchboard-*.tgz

FROM node:22-bookworm-slim
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
ENV SWITCHBOARD_HOST=0.0.0.0 \
    SWITCHBOARD_PORT=8080 \
    SWITCHBOARD_DB=/data/switchboard.db \
    NODE_ENV=production
VOLUME /data
USER node
WORKDIR /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["/app/node_modules/.bin/switchboard", "health"]
ENTRYPOINT ["/app/node_modules/.bin/switchboard"]
CMD ["serve"]
