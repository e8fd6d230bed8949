# Image of the service for docker-compose.yml: Node 24 running the compiled JavaScript; the broker runs
# in its own container.
FROM node:24-bookworm-slim AS build
WORKDIR /build
# Dependencies first, so editing the source does not redo the install layer. `npm ci` runs the
# `prepare` script, which compiles src/ to dist/ once the sources are copied in.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The web console is built with the service (web/README.md) and served from web/dist.
COPY web ./web
COPY scripts ./scripts
RUN npm run build

FROM node:24-bookworm-slim
RUN mkdir -p /app /data/destinations && chown node:node /app /data/destinations
WORKDIR /app
USER node
ENV NODE_ENV=production MALLOC_ARENA_MAX=2
# Runtime dependencies only: no TypeScript, no tsx, no test tools.
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev --ignore-scripts
COPY --chown=node:node schemas ./schemas
COPY --chown=node:node bin ./bin
COPY --from=build --chown=node:node /build/dist ./dist
COPY --from=build --chown=node:node /build/web/dist ./web/dist
EXPOSE 8080
# The Node flags of `npm start` (package.json); ARCHITECTURE.md says why.
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
