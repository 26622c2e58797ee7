# One container running the API and the job workers. Configure it only by environment (see README).
FROM oven/bun:1.4.5-slim AS deps
WORKDIR /app
COPY package.json bun.lock ./
COPY patches ./patches
RUN bun install --frozen-lockfile --production --ignore-scripts

FROM oven/bun:1.4.5-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/.data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bun.lock tsconfig.json ./
COPY src ./src
COPY sql ./sql
RUN mkdir -p /app/.data && chown -R bun:bun /app/.data
USER bun
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD bun -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# SIGTERM stops taking requests, lets those in flight and the running jobs finish, then exits 0.
STOPSIGNAL SIGTERM
CMD ["bun", "src/main.ts"]
