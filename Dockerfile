# Portal with the embedded product API (docs/decisions/021). Build: docker build -t vpn-portal .
# Run (a real deploy): docker run -p 3000:3000 --env-file production.env \
#     --read-only --tmpfs /tmp -v portal-data:/app/data vpn-portal
#   Without SMTP_URL, the Stripe keys, TWO_FACTOR_ENCRYPTION_KEY, SESSION_SECRET and SELLER_NAME/SELLER_ADDRESS/SELLER_VAT_ID
#   it refuses to start and names them. (The invoices' DejaVu fonts come with node_modules, copied below.)
# Try it on stand-ins: docker run -p 3000:3000 -e SANDBOX=true --read-only --tmpfs /tmp -v portal-data:/app/data vpn-portal
# The image never defaults to sandbox mode (docs/decisions/019): it runs build/server.js, not `npm start`.
# No `# syntax=` line: it would make BuildKit pull a frontend image, which fails where the registry is unreachable.

FROM node:22-bookworm-slim AS base
WORKDIR /app
ENV NODE_ENV=production

# Native modules (better-sqlite3, argon2) compile here, so the runtime image needs no compiler.
FROM base AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# node-gyp builds against the image's own Node headers instead of downloading them (works offline, as .ci/run).
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# npm ci's postinstall applies these to two Remix packages (docs/decisions/053).
COPY patches ./patches
RUN npm ci --include=dev

FROM deps AS build
COPY . .
RUN npm run build

# Production dependencies without what only building needs: TypeScript and @types (peers of Remix and
# stripe, so `npm prune` keeps them; nothing loads them at run time) and better-sqlite3's SQLite sources,
# object files and static library (about 50 MB): only its stripped addon is loaded.
FROM deps AS prod-deps
RUN npm prune --omit=dev \
 && rm -rf node_modules/typescript node_modules/@types node_modules/.bin/tsc node_modules/.bin/tsserver \
 && cd node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node ./better_sqlite3.node \
 && rm -rf build deps src \
 && mkdir -p build/Release \
 && mv ./better_sqlite3.node build/Release/better_sqlite3.node \
 && strip --strip-unneeded build/Release/better_sqlite3.node

FROM base AS runtime
# The code and its dependencies belong to root (COPY's default owner) and are read-only to the process,
# which runs as 1000:1000 (numeric, so Kubernetes' runAsNonRoot can verify it) and writes only /app/data:
# the SQLite database (with its -wal and -shm files) and, in sandbox mode without SESSION_SECRET,
# data/session-secret. The root filesystem can be mounted read-only (--read-only); give /tmp a tmpfs for
# SQLite's temporary files (large sorts). /app/data is created here owned by 1000:1000, so a new named
# volume starts with that owner; a bind-mounted host folder must be owned by 1000:1000 (README, "Docker").
# No VOLUME: an anonymous volume per `docker run` would hide where the database lives.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
COPY package.json ./
RUN mkdir -p /app/data && chown 1000:1000 /app/data && chmod 700 /app/data
USER 1000:1000
ENV PORT=3000 DATABASE_URL=/app/data/portal.sqlite
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Migrations and seed run at start, before the server accepts requests.
CMD ["node", "build/server.js"]
