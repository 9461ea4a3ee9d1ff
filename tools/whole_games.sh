#!/usr/bin/env bash
# Whole games at full size, one after another: each solved, verified in full, checked to fail
# on a changed value, its table row, checksums, statistics and a short opening book written, then
# its database removed. Run again with the same command to resume: a solve goes on from the tiers
# its database holds, a verify from its log, and a game whose data/G.step says "done" is skipped.
#
#   nohup tools/whole_games.sh > data/whole_games.out 2>&1 &
#   tools/whole_games.sh viking lasker          # these games only
#   KEEP_DATABASES=1 tools/whole_games.sh       # leave each database on disk
#
# Each game G is solved into the database its rules name by default (data/viking.h5,
# data/standard_removal-optional.h5: what `morris query --rules ...` reads) and leaves in data/:
#   G.jsonl, G.time.log               the solve's JSON lines; /usr/bin/time -v of each run
#   verify-G.jsonl, verify-G.time.log one line a checked tier (morris verify --log)
#   verified/<database>.jsonl         the verify's ledger: a database solved again with the same
#                                     values is not checked again (morris verify --ledger)
#   G.tamper.md, G.tamper.json        the verify of a few tiers with one value changed (tools/tamper_check.py)
#   G.table.md                        its row of the README's table (tools/game_table.py)
#   checksums/<database>-whole.json   {tier: checksum}; compare with tests/data/checksums/
#   rulesets/<database>.json          the start's value and every tier's counts
# and solver/books/<database>.h5 (the tiers with BOOK_HAND or more men in hand). A game of the
# history rule also leaves G.compare.md and .json: its plain states against the plain game's
# values, tier by tier (tools/compare_values.py). `morris solve --whole-game` with the same
# options rebuilds a removed database.
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
    # the history rule (solver.history): the Viking ban on the Viking game, the other on the standard game
    [viking-ban]="--rules viking -o reclose=same-man"
    [standard-ban]="--rules standard -o reclose=running-mill"
)
ORDER=(no-flying viking per-mill optional passes diagonal morabaraba standard-ban viking-ban lasker)
# the opening book's tiers: at least this many men in hand (both sides), so that it stays small
declare -A BOOK_HAND=([lasker]=14 [morabaraba]=18)
# `morris solve --max-memory`: 16 GiB for the large games (per-mill's placing phase would take
# 17.8 GiB unheld); 19 GiB for the history rule's, whose largest groups plan up to 18.8 GiB where
# an input holds a code past 255 (2 bytes a state), which only the solve finds out
MEM="--max-memory 16GiB"
HISTORY_MEM="--max-memory 19GiB"
declare -A SOLVE=([lasker]="$MEM" [morabaraba]="$MEM" [per-mill]="$MEM" [optional]="$MEM" [passes]="$MEM" [diagonal]="$MEM"
    [viking-ban]="$HISTORY_MEM" [standard-ban]="$HISTORY_MEM")
# no opening book under the history rule (morris book refuses the option)
declare -A NO_BOOK=([viking-ban]=1 [standard-ban]=1)
# the plain game each history game is compared with, position by position
declare -A PLAIN=([viking-ban]="--rules viking" [standard-ban]="--rules standard")

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

names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=("${ORDER[@]}")
mkdir -p data/verified data/checksums data/rulesets
for name in "${names[@]}"; do
    [[ -n "${RULES[$name]:-}" ]] || { echo "unknown game $name (one of: ${ORDER[*]})" >&2; exit 2; }
    # shellcheck disable=SC2086  # the options are words
    set -- ${RULES[$name]}
    db=$(default_db "$@")
    base=$(basename "$db" .h5)
    step="data/$name.step"
    if [[ -f "$step" && "$(cat "$step")" == done ]]; then
        echo "$name: done ($step)"
        continue
    fi
    if [[ ! -f "$step" ]]; then
        fits=0
        # shellcheck disable=SC2086
        python tools/disk_check.py "$@" ${SOLVE[$name]:-} --db "$db" || fits=$?
        if [[ $fits == 3 ]]; then
            echo "$name: not started: the disk does not hold it ($(date -u +%FT%TZ)); going on with the next game"
            continue
        fi
        [[ $fits == 0 ]] || exit "$fits"
    fi
    ledger="data/verified/$base.jsonl"
    if [[ "$(cat "$step" 2>/dev/null)" != verified ]]; then
        echo "$name: solve ($(date -u +%FT%TZ))"
        echo "=== run $(date -u +%FT%TZ)" >> "data/$name.time.log"
        # shellcheck disable=SC2086
        /usr/bin/time -v morris solve --whole-game "$@" ${SOLVE[$name]:-} --db "$db" --json >> "data/$name.jsonl" 2>> "data/$name.time.log"
        echo solved > "$step"
        echo "$name: verify ($(date -u +%FT%TZ))"
        echo "=== verify $(date -u +%FT%TZ)" >> "data/verify-$name.time.log"
        /usr/bin/time -v morris verify --db "$db" --log "data/verify-$name.jsonl" --ledger "$ledger" \
            2>> "data/verify-$name.time.log"
        # The negative control: the verify must fail where one value is changed (in a scratch copy:
        # the database is not written). Where it does not, the run stops here, unlabelled.
        if ! python tools/tamper_check.py --db "$db" --json "data/$name.tamper.json" > "data/$name.tamper.md"; then
            echo "$name: a changed value was NOT caught by the verify (data/$name.tamper.md): stopped, not verified" >&2
            exit 1
        fi
        echo verified > "$step"
    fi
    # the reference column: the standard game's database where it is on disk, else its statistics
    reference=data/standard.h5 ref_log=- ref_time_log=-
    if [[ -e $reference ]]; then
        [[ ! -f data/whole.jsonl ]] || ref_log=data/whole.jsonl ref_time_log=data/whole.time.log
    else
        reference=tests/data/rulesets/standard.json
    fi
    python tools/game_table.py "$reference" "$db" --log "$ref_log" --log "data/$name.jsonl" \
        --time-log "$ref_time_log" --time-log "data/$name.time.log" --checksums-dir data/checksums --stats-dir data/rulesets \
        > "data/$name.table.md.part"
    mv "data/$name.table.md.part" "data/$name.table.md"
    [[ -n "${NO_BOOK[$name]:-}" ]] || morris book build --db "$db" --min-hand "${BOOK_HAND[$name]:-12}"
    if [[ -n "${PLAIN[$name]:-}" ]]; then
        # shellcheck disable=SC2086
        plain_db=$(default_db ${PLAIN[$name]})
        had_plain=0
        [[ ! -e $plain_db ]] || had_plain=1
        echo "$name: compare with $plain_db ($(date -u +%FT%TZ))"
        # shellcheck disable=SC2086  # (the solve resumes where it stopped, or finds every tier there)
        /usr/bin/time -v morris solve --whole-game ${PLAIN[$name]} $MEM --db "$plain_db" --json >> "data/$name.plain.jsonl" 2>> "data/$name.plain.time.log"
        python tools/compare_values.py "$plain_db" "$db" --json "data/$name.compare.json" > "data/$name.compare.md.part"
        mv "data/$name.compare.md.part" "data/$name.compare.md"
        if [[ $had_plain == 0 && -z "${KEEP_DATABASES:-}" ]]; then
            rm -rf "$plain_db" "$plain_db.d" "$plain_db.lock"
        fi
    fi
    echo done > "$step"
    echo "$name: done ($(date -u +%FT%TZ)); its row in data/$name.table.md"
    if [[ -z "${KEEP_DATABASES:-}" ]]; then
        rm -rf "$db" "$db.d" "$db.lock"
        echo "$name: removed $db"
    fi
done
