# syntax=docker/dockerfile:1
# depot as one self-contained executable (scripts/build.ts) on a slim glibc base.
#
#   docker build -t depot .
#   docker run -d -p 8080:8080 -v depot-data:/data -e APP_URL=http://localhost:8080 depot
#   docker logs <container>     # the first start logs the setup link: open it to create the first admin
#   docker exec <container> depot user:create --name Vera --email vera@example.com --role vendor
#
# CLI commands run beside the server: on the embedded database the running server does them for the
# CLI through its control socket in /data (no second process opens the database).
#
# Without DATABASE_URL the embedded database, app.key and uploaded releases live in /data (the volume),
# which is depot's alone (0700; docs/operators.md: File modes).

# ---- build: install dependencies (Bun comes from devDependencies) and compile dist/depot ----
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# npm puts node_modules/.bin (bun) on PATH; runs `bun scripts/build.ts`.
RUN npm run build && ./dist/depot --version

# ---- runtime: only the binary ----
# The Bun executable needs glibc (not musl/alpine); bookworm-slim has it and a shell for `docker exec`.
FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 depot \
 && useradd --system --uid 10001 --gid depot --home-dir /data --no-create-home --shell /usr/sbin/nologin depot \
 && install -d -m 0700 -o depot -g depot /data
COPY --from=build /src/dist/depot /usr/local/bin/depot
ENV DATA_DIR=/data \
    PORT=8080 \
    HOST=0.0.0.0
WORKDIR /data
VOLUME /data
USER depot:depot
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 CMD ["/usr/local/bin/depot","healthcheck","--ready"]
ENTRYPOINT ["/usr/local/bin/depot"]
CMD ["serve"]
