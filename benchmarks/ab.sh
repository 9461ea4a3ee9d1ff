#!/bin/bash
# Before/after in one sitting: run each command in two work trees, alternating which goes first.
#   benchmarks/ab.sh BEFORE_TREE AFTER_TREE LOG 'command 1' ['command 2' ...]
# Each tree needs its own .venv (git worktree add ../base <commit>; python -m venv ../base/.venv;
# ../base/.venv/bin/pip install -e ../base). Every run is logged with the load average before it and
# /usr/bin/time's wall, CPU and peak RSS, so that a run taken under load shows.
set -u
before=$1 after=$2 log=$3; shift 3
: > "$log"
run() { # tree label command
  (cd "$1" && . .venv/bin/activate &&
   echo "=== $2 $(date +%T) load $(cut -d' ' -f1 /proc/loadavg) :: $3" >> "$log" &&
   /usr/bin/time -f "TIME wall %e s, user %U s, sys %S s, maxrss %M KB" bash -c "$3" >> "$log" 2>&1)
}
for cmd in "$@"; do
  for order in "before after" "after before"; do
    for t in $order; do
      if [ $t = before ]; then run "$before" before "$cmd"; else run "$after" after "$cmd"; fi
    done
  done
done
echo DONE >> "$log"
