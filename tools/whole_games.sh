#!/usr/bin/env bash
# The long runs of issues 20 and 26: whole games at full size, each solved, verified in full, its
# table row, checksums, statistics and a short opening book recorded, then its database removed,
# one game after another. Run again with the same command to resume: a solve goes on from the
# tiers its database holds, a verify from its log, and a game whose step file says "done", or
# whose checksums and statistics are committed (a new machine's empty data/; a history game's
# comparison with its plain game too), is skipped.
# A database left half solved by an earlier session has what it holds verified first
# (benchmarks/verify_run.py --solved-only), so that each session's checks reach the ledger.
#
#   nohup benchmarks/whole_games.sh > data/whole_games.out 2>&1 &
#   benchmarks/whole_games.sh viking lasker   # these games only
#   KEEP_DATABASES=1 benchmarks/whole_games.sh   # leave each database on disk
#   nohup benchmarks/oom_guard.sh > /dev/null 2>&1 &   # beside it: others die first if memory runs out
#
# Each game G is solved into the database its rules name by default (data/viking.h5,
# data/standard_removal-optional.h5: what `morris query --rules ...` reads) and leaves
# data/G.jsonl (the solve's JSON lines), data/G.time.log (/usr/bin/time -v of each segment),
# data/verify-G.jsonl (one line a checked tier) and data/verify-G.time.log,
# benchmarks/verified/<database name>.jsonl (the verify's ledger: each passed check with the
# checksums of what it read, committed to git alone every 10 minutes and at the end of each
# verify, so that a database solved again on a new machine is not checked again where its
# values are the same), data/G.tamper.md and
# .json (the verify of a few tiers with one value changed, benchmarks/tamper_check.py), data/G.table.md (its
# row of the README's table), benchmarks/checksums/<database name>-whole.json,
# benchmarks/rulesets/<database name>.json (what notebooks/old_rules.ipynb plots) and
# solver/books/<database name> (the tiers with BOOK_HAND or more men in hand); a game of the
# history rule also data/G.compare.md and .json (its plain states against the plain game's values,
# tier by tier). Then, unless KEEP_DATABASES is set, it removes the database (a 9-men one takes
# about 11 GB, Lasker's and Morabaraba's several times that; see drop-standard below).
# `morris solve --whole-game` with the same options rebuilds it. What a game leaves is committed
# to git as soon as it is made (benchmarks/commit_paths.py: those paths alone), since a session is
# cut off without warning and a new machine's data/ is empty: data/'s files of the game copied to
# benchmarks/games/G/ after its moving phase's verify, after its solve and when it is done, then
# with its checksums, statistics and book.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate

declare -A RULES=(
    [no-flying]="--rules no-flying"
    [viking]="--rules viking"
    [lasker]="--rules lasker"
    [morabaraba]="--rules twelve"
    [per-mill]="--rules standard -o double-mill=per-mill"
    [optional]="--rules standard -o removal=optional"
    [passes]="--rules standard -o blocked=passes"
    [diagonal]="--rules standard -o board=diagonal"
    # issue 23: the history rule's games (solver.history), the Viking ban on the Viking game and
    # the other source's on the standard game, so that each reading is solved at full size
    [viking-ban]="--rules viking -o reclose=same-man"
    [standard-ban]="--rules standard -o reclose=running-mill"
)
# the opening book's tiers: at least this many men in hand (both sides), so that it stays small
declare -A BOOK_HAND=([lasker]=14 [morabaraba]=18)
# more for `morris solve`: every game held to 16 GiB (the tiers kept for later groups within what
# the largest group leaves; per-mill's placing phase would take 17.8 GiB unheld), so that tests
# and tools beside them do not run the machine out
MEM="--max-memory 16GiB"
# The history rule's games get 19 GiB: their largest groups (8-9 with 9-8, 7-9 with 9-7) plan
# 15.3-15.7 GiB with their inputs a byte a state, but up to 18.8 and 16.7 GiB where an input holds
# a code past 255 (2 bytes a state), which only the solve finds out, and there `morris solve`
# stops with a PlanError (the chain with it). The ban can lengthen games: to 6 men some of the
# Viking ban's subspaces have longest values up to 25 plies longer than plain Viking's (4-6: 74
# against 49), though not the longest (5-6: 100, plain 6-6: 101); plain Viking reaches 192 at 9
# men, plain standard 204. (benchmarks/oom_guard.sh lets the kernel kill others first.)
HISTORY_MEM="--max-memory 19GiB"
declare -A SOLVE=([lasker]="$MEM" [morabaraba]="$MEM" [per-mill]="$MEM" [optional]="$MEM" [passes]="$MEM" [diagonal]="$MEM"
    [viking-ban]="$HISTORY_MEM" [standard-ban]="$HISTORY_MEM")
# the whole-game solve in segments of this many seconds (`morris solve --stop-after`), each
# followed by the verify of what it wrote (`verify_run.py --solved-only`): the checks reach the
# ledger, committed, within the session that solved the tiers, where a machine replaced between
# two sessions would otherwise take the last session's solving unchecked (Lasker's fourth solve
# lost 11.7 G so). An hour of Lasker's placing phase is about 8.5 G, whose check takes about 26
# minutes; on one machine the final verify finds them in its log and does nothing twice.
declare -A SEGMENT=([lasker]=3600)
# no opening book under the history rule (morris book refuses the option: not built for it yet)
declare -A NO_BOOK=([viking-ban]=1 [standard-ban]=1)
# issue 23: the plain game each history game is compared with, position by position
# (benchmarks/compare_values.py): solved again for the comparison where its database is gone,
# then removed again unless it is the kept reference data/standard.h5
declare -A PLAIN=([viking-ban]="--rules viking" [standard-ban]="--rules standard")
# the old rule sets first: each is solved and verified within a session or so, Lasker and
# Morabaraba take several, the history rule's two games (issue 23) most of a day each
# ("ultra": not a game but issue 22's draw ranks of data/standard.h5, morris rank, about 3 hours)
# ("drop-standard": not a game; data/standard.h5, 24 GB with its draw ranks, is removed there, since
# Lasker's database (about 53 GiB) and Morabaraba's (41.1 GiB as written) do not fit beside it in the
# roughly 77 GB this machine has for data; its checksums, statistics and book are in the
# repository, and `morris solve --whole-game`, then `morris rank`, rebuild it in about 4 hours)
# Morabaraba before Lasker: Lasker's cycling groups run at 7.2 M positions/s at men=6 against
# 11 M at men=5 (benchmarks/RESULTS.md, 2026-11-27 from 16:38), so its placing phase would take
# about 6.3 hours as the engine stands; its levels are being made faster first.
# Before each solve, benchmarks/disk_check.py asks the dry run what is left to write: a game that
# does not fit is passed over with a line saying so, and the chain goes on with the next.
# The ban games before Lasker (2026-12-03): a machine has lasted about a day, four or five
# sessions of the chain, and each new one starts with an empty data/. A ban game needs about 20
# hours of it (about 11.5 h solving at the 0.42-0.73 M states a second measured here, 6 h of verify
# at 1.1 M, the plain game again); Lasker about 19 (15 h solving, then the 61 G positions its
# ledger does not hold), more than four machines in a row have given it.
# The standard ban before the Viking ban's comparison (2026-12-04): the machine that solved the
# Viking ban was replaced before its plain game was compared, so that comparison needs the ban game
# solved again (about 11.5 hours, its checks spared by the ledger); the standard ban has nothing yet
# and is the issue's other game, so it goes first and the comparison follows it.
# "ultra" is left out of the order since 2026-12-05: its ranks were made and recorded on
# 2026-11-27 (README, `morris rank`), and a data/standard.h5 solved again for a ban game's
# comparison set it off for 3 hours; `benchmarks/whole_games.sh ultra` still runs it by name.
ORDER=(no-flying viking per-mill optional passes diagonal drop-standard morabaraba standard-ban viking-ban lasker)

# the men a side of these rules: the moving phase's subspaces go up to it
game_men() {
    python -c "import sys; from solver.rules import make_rules; from solver.engine.costs.plan import capped_men
a = sys.argv[2:]; print(capped_men(make_rules(a[0], [a[i + 1] for i in range(1, len(a), 2)]), 99))" "$@"
}

# the database where the commands look for these rules by default (data/standard_removal-optional.h5)
default_db() {
    python -c "import sys; from solver.rules import make_rules; from solver.storage.files import default_path
a = sys.argv[2:]; print(default_path(make_rules(a[0], [a[i + 1] for i in range(1, len(a), 2)])))" "$@"
}

# verify_solved G DB LEDGER: what the database of game G holds so far checked, the checks
# written to the ledger (and committed), the logs banked
verify_solved() {
    echo "$1: verify what the database holds so far ($(date -u +%FT%TZ))"
    echo "=== verify what is solved $(date -u +%FT%TZ)" >> "data/verify-$1.time.log"
    /usr/bin/time -v python benchmarks/verify_run.py --db "$2" --log "data/verify-$1.jsonl" --ledger "$3" --solved-only \
        --commit-every 600 2>> "data/verify-$1.time.log"
    bank "$1" "what its database held so far verified"
}

# stopped_early LOG: whether the solve whose JSON lines end LOG stopped at its --stop-after
stopped_early() {
    tail -n 1 "$1" | python -c 'import json, sys; sys.exit(0 if json.loads(sys.stdin.read()).get("stopped") else 1)'
}

# bank G MESSAGE [PATH...]: data/'s files of game G copied to benchmarks/games/G/ and committed
# with the PATHs (a failed commit, e.g. git busy, is tried again at the next bank)
bank() {
    local name=$1 message=$2 dir="benchmarks/games/$1" f
    shift 2
    mkdir -p "$dir"
    for f in "$name.jsonl" "$name.time.log" "verify-$name.jsonl" "verify-$name.time.log" "$name.tamper.md" "$name.tamper.json" \
        "$name.plain.jsonl" "$name.plain.time.log" "$name.compare.md" "$name.compare.json" "$name.table.md"; do
        if [[ -f "data/$f" ]]; then cp "data/$f" "$dir/$f"; fi
    done
    python benchmarks/commit_paths.py -m "$name: $message (benchmarks/whole_games.sh)" "$dir" "$@" || true
}

names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=("${ORDER[@]}")
for name in "${names[@]}"; do
    if [[ $name == ultra ]]; then
        # the standard game's draw ranks (issue 22), written beside its strong values; resumes
        if [[ -f data/ultra.step && "$(cat data/ultra.step)" == done ]]; then
            echo "ultra: done (data/ultra.step)"
            continue
        fi
        if [[ ! -e data/standard.h5 ]]; then  # (a fresh data/: the ranks were made 2026-11-27)
            echo "ultra: passed over (no data/standard.h5: morris rank ranks it once it is solved)"
            continue
        fi
        echo "ultra: rank ($(date -u +%FT%TZ))"
        echo "=== run $(date -u +%FT%TZ)" >> data/ultra.time.log
        /usr/bin/time -v morris rank --db data/standard.h5 --max-memory 16GiB --json >> data/ultra.jsonl 2>> data/ultra.time.log
        echo done > data/ultra.step
        echo "ultra: done ($(date -u +%FT%TZ))"
        continue
    fi
    if [[ $name == drop-standard ]]; then
        # (kept while a ban game's comparison with it is still to come: its solve was the rest)
        pending=""
        for g in "${!PLAIN[@]}"; do
            # shellcheck disable=SC2086
            if [[ "$(default_db ${PLAIN[$g]})" == data/standard.h5 && -f data/$g.step && "$(cat data/$g.step)" == verified ]]; then
                pending=$g
            fi
        done
        if [[ -n $pending && -e data/standard.h5 ]]; then
            echo "drop-standard: data/standard.h5 kept for $pending's comparison with it"
            continue
        fi
        if [[ -e data/standard.h5 && -z "${KEEP_DATABASES:-}" ]]; then
            for f in benchmarks/checksums/standard-whole.json benchmarks/rulesets/standard.json solver/books/standard.h5; do
                [[ -f $f ]] || { echo "drop-standard: $f is missing: data/standard.h5 kept" >&2; exit 2; }
            done
            rm -rf data/standard.h5 data/standard.h5.d data/standard.h5.lock
            echo "drop-standard: removed data/standard.h5 ($(date -u +%FT%TZ))"
        fi
        continue
    fi
    [[ -n "${RULES[$name]:-}" ]] || { echo "unknown game $name (one of: ${ORDER[*]})" >&2; exit 2; }
    # shellcheck disable=SC2086  # the options are words
    set -- ${RULES[$name]}
    db=$(default_db "$@")
    step="data/$name.step"
    if [[ -f "$step" && "$(cat "$step")" == done ]]; then
        echo "$name: done ($step)"
        continue
    fi
    # a game whose results are committed is done even where data/ is new (its step file gone)
    base=$(basename "$db" .h5)
    # (a history game's also its comparison with the plain game: its results are committed first)
    if [[ ! -f "$step" && -f "benchmarks/checksums/$base-whole.json" && -f "benchmarks/rulesets/$base.json" \
        && ( -z "${PLAIN[$name]:-}" || -f "benchmarks/games/$name/$name.compare.json" ) ]]; then
        echo "$name: done (benchmarks/checksums/$base-whole.json; remove it and benchmarks/rulesets/$base.json to solve it again)"
        continue
    fi
    if [[ ! -f "$step" ]]; then  # (a game already solved has nothing left to write)
        fits=0
        # shellcheck disable=SC2086
        python benchmarks/disk_check.py "$@" ${SOLVE[$name]:-} --db "$db" || fits=$?
        if [[ $fits == 3 ]]; then
            echo "$name: not started: the disk does not hold it ($(date -u +%FT%TZ)); the chain goes on with the next game"
            continue
        fi
        [[ $fits == 0 ]] || exit "$fits"
    fi
    ledger="benchmarks/verified/$base.jsonl"
    if [[ ( -e $db || -d $db.d ) && ( ! -f $step || "$(cat "$step")" == moving-verified ) ]]; then
        # A database an earlier session left half solved: what it holds is checked before its
        # solve goes on, so that those checks reach the ledger, and outlive a lost machine, a
        # session at a time rather than only after the whole solve (Lasker's placing phase spans
        # several sessions, and a new machine's data/ is empty). The final verify takes them
        # from its log; a tier whose reads are not all solved yet waits for it.
        verify_solved "$name" "$db" "$ledger"
    fi
    if [[ ! -f "$step" ]]; then
        # The moving phase first, and its verify: its checks reach the ledger before the placing
        # phase's long solve, where a lost machine would take them with it.
        echo "$name: solve the moving phase ($(date -u +%FT%TZ))"
        echo "=== run $(date -u +%FT%TZ)" >> "data/$name.time.log"
        # shellcheck disable=SC2086
        /usr/bin/time -v morris solve "$@" --max-men "$(game_men "$@")" ${SOLVE[$name]:-} --db "$db" --json >> "data/$name.jsonl" 2>> "data/$name.time.log"
        echo "$name: verify the moving phase ($(date -u +%FT%TZ))"
        echo "=== verify $(date -u +%FT%TZ)" >> "data/verify-$name.time.log"
        /usr/bin/time -v python benchmarks/verify_run.py --db "$db" --log "data/verify-$name.jsonl" --ledger "$ledger" --phase moving \
            --commit-every 600 2>> "data/verify-$name.time.log"
        echo moving-verified > "$step"
        bank "$name" "the moving phase solved and verified"
    fi
    # (a game verified already, whose comparison a lost session cut off, goes on from there)
    if [[ "$(cat "$step" 2>/dev/null)" != verified ]]; then
        echo "$name: solve ($(date -u +%FT%TZ))"
        segment=()
        [[ -z "${SEGMENT[$name]:-}" ]] || segment=(--stop-after "${SEGMENT[$name]}")
        while :; do
            echo "=== run $(date -u +%FT%TZ)" >> "data/$name.time.log"
            # shellcheck disable=SC2086
            /usr/bin/time -v morris solve --whole-game "$@" ${SOLVE[$name]:-} "${segment[@]}" --db "$db" --json >> "data/$name.jsonl" 2>> "data/$name.time.log"
            if [[ ${#segment[@]} -eq 0 ]] || ! stopped_early "data/$name.jsonl"; then
                break
            fi
            verify_solved "$name" "$db" "$ledger"
        done
        echo solved > "$step"
        bank "$name" "solved whole"
        echo "$name: verify ($(date -u +%FT%TZ))"
        echo "=== verify $(date -u +%FT%TZ)" >> "data/verify-$name.time.log"
        /usr/bin/time -v python benchmarks/verify_run.py --db "$db" --log "data/verify-$name.jsonl" --ledger "$ledger" --commit-every 600 \
            2>> "data/verify-$name.time.log"
        echo verified > "$step"
        # and it fails where one value is changed (a scratch copy: the database is not written)
        python benchmarks/tamper_check.py --db "$db" --json "data/$name.tamper.json" > "data/$name.tamper.md" \
            || echo "$name: a changed value was NOT caught by the verify (data/$name.tamper.md)"
    fi
    # the reference column: the standard game's database while it is on disk, else its statistics
    reference=data/standard.h5
    [[ -e $reference ]] || reference=benchmarks/rulesets/standard.json
    # and its solve's logs: its whole solve's, else the one of this game's comparison where that
    # solved the standard game again ("-": none)
    ref_log=- ref_time_log=-
    logs=(whole)
    # shellcheck disable=SC2086
    if [[ -n "${PLAIN[$name]:-}" && "$(default_db ${PLAIN[$name]})" == data/standard.h5 ]]; then logs+=("$name.plain"); fi
    for f in "${logs[@]}"; do
        if [[ $reference == data/standard.h5 && $ref_log == - && -f data/$f.jsonl ]]; then
            ref_log=data/$f.jsonl ref_time_log=data/$f.time.log
        fi
    done
    python benchmarks/game_table.py "$reference" "$db" --log "$ref_log" --log "data/$name.jsonl" \
        --time-log "$ref_time_log" --time-log "data/$name.time.log" --checksums-dir benchmarks/checksums --stats-dir benchmarks/rulesets \
        > "data/$name.table.md.part"
    mv "data/$name.table.md.part" "data/$name.table.md"
    [[ -n "${NO_BOOK[$name]:-}" ]] || morris book build --db "$db" --min-hand "${BOOK_HAND[$name]:-12}"
    # banked before the step says done: a run cut off between the two makes them again
    book=()
    [[ -n "${NO_BOOK[$name]:-}" ]] || book=("solver/books/$base.h5")
    bank "$name" "solved whole and verified" "benchmarks/checksums/$base-whole.json" "benchmarks/rulesets/$base.json" "${book[@]}"
    # The plain game solved again and compared after this game's results are committed: a
    # machine lost in the meantime (the plain solve: Viking 1.5 hours, standard about 3) keeps them.
    if [[ -n "${PLAIN[$name]:-}" ]]; then
        # shellcheck disable=SC2086
        plain_db=$(default_db ${PLAIN[$name]})
        echo "$name: compare with $plain_db ($(date -u +%FT%TZ))"
        # shellcheck disable=SC2086  # (the solve resumes where it stopped, or finds every tier there)
        /usr/bin/time -v morris solve --whole-game ${PLAIN[$name]} $MEM --db "$plain_db" --json >> "data/$name.plain.jsonl" 2>> "data/$name.plain.time.log"
        python benchmarks/compare_values.py "$plain_db" "$db" --json "data/$name.compare.json" > "data/$name.compare.md.part"
        mv "data/$name.compare.md.part" "data/$name.compare.md"  # (whole or not at all: a cut-off one was banked empty)
        if [[ $plain_db != data/standard.h5 && -z "${KEEP_DATABASES:-}" ]]; then
            rm -rf "$plain_db" "$plain_db.d" "$plain_db.lock"
        fi
        bank "$name" "compared with the plain game"
    fi
    echo done > "$step"
    echo "$name: done ($(date -u +%FT%TZ)); table in data/$name.table.md, committed with its files (benchmarks/games/$name)"
    if [[ -z "${KEEP_DATABASES:-}" ]]; then
        rm -rf "$db" "$db.d" "$db.lock"
        echo "$name: removed $db"
    fi
done
