#!/usr/bin/env bash
# Makes sure a Docker engine answers on this machine, starting Debian's
# dockerd (package docker.io) when it does not.
#
# Idempotent: when `docker info` already succeeds it does nothing. Otherwise
# it starts `dockerd --bridge=none --iptables=false --ip-masq=false` in the
# background (no bridge, no NAT rules: workload containers run with
# --network none and nothing may touch private address ranges here), logs
# to $POWERSWEEP_DOCKERD_LOG (default /tmp/powersweep-dockerd.log) and waits
# up to 30 s for the engine to answer. Concurrent callers are serialized
# with a lock file, so only one dockerd is started.
#
# Environment: DOCKER (client, default /usr/bin/docker: another client may be
# earlier on PATH), DOCKERD (default /usr/sbin/dockerd).
# Exit codes: 0 the engine answers; 1 it could not be started (the message
# says why); 2 docker.io is not installed.
set -euo pipefail

DOCKER="${DOCKER:-/usr/bin/docker}"
DOCKERD="${DOCKERD:-/usr/sbin/dockerd}"
LOG="${POWERSWEEP_DOCKERD_LOG:-/tmp/powersweep-dockerd.log}"
LOCK="/tmp/powersweep-dockerd.lock"
WAIT_S=30

if [ ! -x "$DOCKER" ] || [ ! -x "$DOCKERD" ]; then
  echo "start-dockerd: docker.io is not installed ($DOCKER or $DOCKERD missing);" \
       "install it with: apt-get install docker.io" >&2
  exit 2
fi

engine_answers() { "$DOCKER" info >/dev/null 2>&1; }

if engine_answers; then
  echo "start-dockerd: engine already running"
  exit 0
fi

exec 9>"$LOCK"
flock 9
# Another caller may have started it while we waited for the lock.
if engine_answers; then
  echo "start-dockerd: engine already running"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "start-dockerd: the engine is not running and starting dockerd needs root" \
       "(run: sudo $0)" >&2
  exit 1
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "start-dockerd: starting $DOCKERD (log: $LOG)"
  # setsid: the daemon outlives this script and the test that called it.
  # Descriptor 9 (the lock) is closed so the daemon does not hold it.
  setsid "$DOCKERD" --bridge=none --iptables=false --ip-masq=false \
    >>"$LOG" 2>&1 </dev/null 9>&- &
else
  echo "start-dockerd: dockerd is running but not answering yet; waiting"
fi
for _ in $(seq 1 $((WAIT_S * 5))); do
  if engine_answers; then
    echo "start-dockerd: engine ready"
    exit 0
  fi
  sleep 0.2
done
echo "start-dockerd: the engine did not answer within ${WAIT_S} s; last lines of $LOG:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
