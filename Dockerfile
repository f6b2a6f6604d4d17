# syntax=docker/dockerfile:1
# Portal with the embedded product API. Build: docker build -t vpn-portal .
# Run (a real deploy): docker run -p 3000:3000 --env-file production.env -v portal-data:/app/data vpn-portal
#   Without SMTP_URL, the Stripe keys, TWO_FACTOR_ENCRYPTION_KEY and SESSION_SECRET it refuses to start and names them.
# Try it on stand-ins: docker run -p 3000:3000 -e SANDBOX=true vpn-portal
# The image never defaults to sandbox mode (docs/decisions/019): it runs build/server.js, not `npm start`.

FROM node:20-bookworm-slim AS base
WORKDIR /app
ENV NODE_ENV=production

# Native modules (better-sqlite3, argon2) compile here, so the runtime image needs no compiler.
FROM base AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --include=dev

FROM deps AS build
COPY . .
RUN npm run build

FROM deps AS prod-deps
RUN npm prune --omit=dev

FROM base AS runtime
COPY --from=prod-deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/build ./build
COPY --from=build --chown=node:node /app/public ./public
COPY --chown=node:node package.json ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
ENV PORT=3000 DATABASE_URL=/app/data/portal.sqlite
EXPOSE 3000
VOLUME ["/app/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Migrations and seed run at start, before the server accepts requests.
CMD ["node", "build/server.js"]
