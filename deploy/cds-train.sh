#!/bin/sh
# Writes the node image's class-data archive (issue 45): a training run of the node, all roles on
# embedded PostgreSQL in a throwaway data dir, from its start to its ready line, then SIGTERM; the
# JVM writes the classes it loaded, parsed and verified, to the archive as it exits. The image's
# entrypoint maps them from it (-XX:SharedArchiveFile) instead of loading them from the jar: about
# half of a start on a busy machine. A JVM that finds the archive does not match (another JDK, the
# jar changed) ignores it and loads the classes as before. Run at image build time, as the user the
# image runs as (PostgreSQL refuses root):
#   deploy/cds-train.sh /opt/conclave/conclave-node.jar /opt/conclave/conclave-node.jsa
set -eu
jar="$1"
archive="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# the node on loopback, its ports its defaults: nothing else listens in a build
CONCLAVE_DATA_DIR="$work/data" CONCLAVE_BIND_HOST=127.0.0.1 \
  java -XX:ArchiveClassesAtExit="$archive" -Xlog:disable -Xlog:all=error:stderr -jar "$jar" serve > "$work/log" 2>&1 &
node=$!
waited=0
until grep -q ' ready node=' "$work/log"; do
  if ! kill -0 "$node" 2> /dev/null; then
    cat "$work/log" >&2
    echo "cds-train: the node exited before it was ready" >&2
    exit 1
  fi
  if [ "$waited" -ge 600 ]; then
    cat "$work/log" >&2
    echo "cds-train: the node was not ready within 300 s" >&2
    kill -KILL "$node"
    exit 1
  fi
  sleep 0.5
  waited=$((waited + 1))
done
kill -TERM "$node"
if ! wait "$node"; then
  cat "$work/log" >&2
  echo "cds-train: the node did not stop cleanly" >&2
  exit 1
fi
# the archive must map, checksums and all, or the image is not built
java -XX:SharedArchiveFile="$archive" -XX:+VerifySharedSpaces -Xshare:on -Xlog:disable -Xlog:all=error:stderr -cp "$jar" -version > /dev/null
echo "cds-train: wrote $archive ($(du -k "$archive" | cut -f1) KiB)"
