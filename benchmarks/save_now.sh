#!/usr/bin/env bash
# Before a session ends (the chain dies with it): ask the running history-rule solve to save its
# group at the next chance (SIGUSR1: solver/history/checkpoint.py, saved_on_signal), so the next
# session's rerun loses the minutes since then, not up to the 15 since the last timed save. Waits
# until a save newer than this call is written (at most WAIT seconds) and prints its meta.json.
#
#   benchmarks/save_now.sh [WAIT]     # WAIT: seconds, default 600
set -euo pipefail
cd "$(dirname "$0")/.."
wait_s=${1:-600}
# the Python process alone: /usr/bin/time and the chain's shell would end on SIGUSR1
pids=$(pgrep -f '^[^ ]*python[^ ]* [^ ]*/morris solve' || true)
if [[ -z $pids ]]; then
    echo "no morris solve is running: nothing to save"
    exit 1
fi
# only a process that catches SIGUSR1 (bit 10 of SigCgt): one started before the handler
# existed, or outside a history group's solve (the placing phase), would end on it instead
asked=()
for pid in $pids; do
    caught=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    if (( (16#${caught:-0} >> 9 & 1) == 1 )); then
        asked+=("$pid")
    else
        echo "morris solve $pid does not catch SIGUSR1 now (started before it could, or not in a history group): not sent"
    fi
done
if (( ${#asked[@]} == 0 )); then
    exit 1
fi
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
kill -USR1 "${asked[@]}"
echo "asked morris solve for a save: ${asked[*]}"
for ((t = 0; t < wait_s; t += 5)); do
    saved=$(find data -path '*.checkpoint/*/meta.json' -newer "$stamp" 2>/dev/null | head -1)
    if [[ -n $saved ]]; then
        echo "saved after about $t s: $saved"
        cat "$saved"
        echo
        exit 0
    fi
    sleep 5
done
echo "no save within $wait_s s (a group that ends first writes its values to the database instead)"
exit 1
