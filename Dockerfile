# Build stage: every dependency, the compiled server and the console.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci
COPY . .
RUN npm run build && rm -rf dist/bench && npm prune --omit=dev

# Runtime stage: the compiled server, the console and production dependencies only
# (no devDependencies, sources, tests or benches).
FROM node:20-bookworm-slim
# audio and video ingestion: ffmpeg decodes, PocketSphinx (US English model) transcribes offline
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ffmpeg pocketsphinx pocketsphinx-en-us \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 LARDER_DATA_DIR=/data MALLOC_ARENA_MAX=2 \
  NODE_OPTIONS=--max-old-space-size=1024
COPY --from=build /app/package.json /app/tsconfig.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/tools/paths.js /app/tools/compile-cache.js ./tools/
EXPOSE 8000
CMD ["node", "-r", "./tools/paths.js", "dist/apps/api/src/main.js"]
