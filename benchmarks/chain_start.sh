#!/usr/bin/env bash
# What a session does first for the long runs (issues 23 and 26): on a new machine (no .venv)
# install the project as .ci/run does, say what data/ holds (a new machine's is empty: each game
# starts its solve again, and its verify takes what the ledgers in benchmarks/verified/ hold),
# then start benchmarks/oom_guard.sh and benchmarks/whole_games.sh unless they run already.
# The chain dies with the session; this resumes it. Shortly before a session ends,
# benchmarks/save_now.sh saves the history group being solved, so that little of it is lost:
# SAVE_IN asks for it that many minutes from now (e.g. 170 at a session's start, which ends at
# 180), in case the session is cut off before it is asked by hand; a later call replaces it.
#
#   benchmarks/chain_start.sh [SAVE_IN]
set -euo pipefail
cd "$(dirname "$0")/.."
save_in=${1:-}
if [[ -n $save_in && ! $save_in =~ ^[0-9]+$ ]]; then
    echo "chain_start.sh: SAVE_IN is whole minutes from now, not '$save_in'" >&2
    exit 2
fi
if [[ ! -x .venv/bin/morris ]]; then
    echo "no .venv: installing the project (a new machine)"
    python3 -m venv .venv
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[test]"
fi
steps=$(cd data && ls -- *.step 2>/dev/null | tr '\n' ' ' || true)
echo "data/: $(du -sh data | cut -f1); step files: ${steps:-none}"
for f in benchmarks/verified/*.jsonl; do
    if [[ -f $f ]]; then
        echo "ledger $f: $(($(wc -l < "$f") - 1)) passed checks"
    fi
done
# a commit cut off with the last session (the chain commits while it runs) leaves git's index
# locked, and every later commit would fail: removed where no git command runs
if [[ -e .git/index.lock ]] && ! pgrep -x git > /dev/null; then
    rm -f .git/index.lock
    echo "removed a stale .git/index.lock (a commit cut off with the last session)"
fi
if [[ -n $save_in ]]; then
    pkill -f "^bash -c sleep [0-9]+; exec benchmarks/save_now.sh" || true  # (the one asked before)
    nohup bash -c "sleep $((save_in * 60)); exec benchmarks/save_now.sh" >> data/save_now.log 2>&1 &
    echo "a save asked for at $(date -d "+$save_in min" +%H:%M) (benchmarks/save_now.sh; its output in data/save_now.log)"
fi
if pgrep -f "benchmarks/whole_games.sh" > /dev/null; then
    echo "the chain is running (data/whole_games.out)"
    exit 0
fi
if ! pgrep -f "morris solve" > /dev/null; then
    rm -f data/*.h5.lock  # (left by the solve the last session's end killed)
fi
pgrep -f "benchmarks/oom_guard.sh" > /dev/null || nohup benchmarks/oom_guard.sh > /dev/null 2>&1 &
nohup benchmarks/whole_games.sh >> data/whole_games.out 2>&1 &
echo "the chain started: tail -f data/whole_games.out"
