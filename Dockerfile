# Image of the service for docker-compose.yml: Node 20 and the npm dependencies; the broker runs in its own container.
FROM node:20-bookworm-slim
RUN mkdir -p /app /data/destinations && chown node:node /app /data/destinations
WORKDIR /app
USER node
# Dependencies first, so editing the source does not redo the install layer. tsx (a dev dependency)
# runs the TypeScript entry point, so the full dependency set is installed.
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY --chown=node:node . .
EXPOSE 8080
CMD ["npm", "start"]
