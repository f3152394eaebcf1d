#!/usr/bin/env bash
# An S3-compatible server for tests: OpenStack Swift with its s3api middleware, single node on loopback, from Debian's
# packages (installed when missing). Access key `test:tester`, secret `testing`, region us-east-1, path-style.
#   scripts/s3.sh start <dir> <port> [bucket...]
#                                      # the S3 endpoint on 127.0.0.1:<port>; account, container and object servers on the
#                                      # next three ports; everything (configuration, rings, data, logs) under <dir>; the
#                                      # buckets named are created (through Swift's own API: a bucket is a container)
#   scripts/s3.sh bucket <dir> <bucket...>   # more buckets on the server started in <dir>
#   scripts/s3.sh stop <dir>
set -euo pipefail
cd "$(dirname "$0")/.."
command=${1:?start or stop}
dir=${2:?a folder}
# Creates the buckets named with Swift's internal client, past authentication (tempauth's tokens would need
# memcached): a bucket is a container of the tester's account, AUTH_test.
# `[filter:<name>]` sections of Swift's own middleware, each `use = egg:swift#<name>` (dashes as underscores).
filters() {
    for name in "$@"; do printf '[filter:%s]\nuse = egg:swift#%s\n' "$name" "${name//-/_}"; done
}

make_buckets() {
    local dir=$1
    shift
    [ "$#" -gt 0 ] || return 0
    # A file of its own per call: tests make buckets at the same time, and a shared one was read while rewritten.
    local conf
    conf=$(mktemp "$dir/etc/internal-client.XXXXXX.conf")
    cat > "$conf" <<CONF
[DEFAULT]
swift_dir = $dir/etc
[pipeline:main]
pipeline = catch_errors proxy-logging proxy-server
[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
CONF
    filters catch_errors proxy-logging >> "$conf"
    /usr/bin/python3 - "$conf" "$@" <<'PY' || { rm -f "$conf"; echo "the buckets could not be created" >&2; exit 1; }
import sys, time
from swift.common.internal_client import InternalClient
client = InternalClient(sys.argv[1], "bookmobile-test", 3)
for bucket in sys.argv[2:]:
    for attempt in range(50):
        try:
            client.create_container("AUTH_test", bucket)
            break
        except Exception:
            if attempt == 49: raise
            time.sleep(0.2)
PY
    rm -f "$conf"
}
case "$command" in
bucket)
    make_buckets "$(cd "$dir" && pwd)" "${@:3}"
    exit 0
    ;;
stop)
    for pidfile in "$dir"/run/*.pid; do
        # Each server leads a session of its own (setsid): the group takes its workers with it.
        [ -f "$pidfile" ] && kill -TERM -- "-$(cat "$pidfile")" 2>/dev/null || true
    done
    exit 0
    ;;
start) ;;
*) echo "usage: $0 start <dir> <port> [bucket...] | bucket <dir> <bucket...> | stop <dir>" >&2; exit 2 ;;
esac
port=${3:?a port}
if ! command -v swift-proxy-server > /dev/null; then
    scripts/apt-ensure.sh swift swift-proxy swift-object swift-account swift-container python3-swift
fi
mkdir -p "$dir"/etc "$dir"/node/sdb1 "$dir"/run "$dir"/log
dir=$(cd "$dir" && pwd)
# swift.conf and the rings are read from swift_dir: nothing in /etc/swift is used or changed.
cat > "$dir/etc/swift.conf" <<CONF
[swift-hash]
swift_hash_path_suffix = bookmobile-test
swift_hash_path_prefix = bookmobile-test
[storage-policy:0]
name = Policy-0
default = yes
CONF
# Rings of one replica on one device, one per kind of server (Debian's python3-swift is for /usr/bin/python3).
/usr/bin/python3 - "$dir" "$port" <<'PY'
import sys
from swift.common.ring import RingBuilder
folder, port = sys.argv[1], int(sys.argv[2])
for offset, kind in enumerate(("account", "container", "object"), start=1):
    builder = RingBuilder(8, 1, 0)
    builder.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": port + offset, "device": "sdb1", "weight": 100})
    builder.rebalance()
    builder.get_ring().save(f"{folder}/etc/{kind}.ring.gz")
PY
common() {
    cat <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $1
devices = $dir/node
mount_check = false
swift_dir = $dir/etc
workers = 1
user = $(id -un)
log_address = /nonexistent
log_level = WARNING
CONF
}
for pair in account:1 container:2 object:3; do
    kind=${pair%%:*}
    { common $((port + ${pair##*:})); printf '[pipeline:main]\npipeline = %s-server\n[app:%s-server]\nuse = egg:swift#%s\n' "$kind" "$kind" "$kind"; } \
        > "$dir/etc/$kind-server.conf"
done
{
    common "$port"
    cat <<CONF
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth copy slo dlo proxy-logging proxy-server
[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin
[filter:s3api]
use = egg:swift#s3api
location = us-east-1
[filter:cache]
use = egg:swift#memcache
CONF
    filters catch_errors gatekeeper healthcheck proxy-logging listing_formats bulk copy slo dlo
} > "$dir/etc/proxy-server.conf"
# Signals back to their defaults: a caller that ignores SIGTERM (a Swift service's test process does) would pass that on,
# and `stop` could not end them.
for kind in account container object proxy; do
    setsid env --default-signal "swift-$kind-server" "$dir/etc/$kind-server.conf" > "$dir/log/$kind.log" 2>&1 &
    echo $! > "$dir/run/$kind.pid"
done
ready=0
for _ in $(seq 1 300); do
    if curl -fsS "http://127.0.0.1:$port/healthcheck" > /dev/null 2>&1; then ready=1; break; fi
    sleep 0.2
done
if [ "$ready" -eq 1 ]; then
    make_buckets "$dir" "${@:4}"
    exit 0
fi
echo "Swift did not answer on 127.0.0.1:$port; its logs are in $dir/log" >&2
tail -20 "$dir"/log/*.log >&2
exit 1
