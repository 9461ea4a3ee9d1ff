"""The history rule (option ``reclose``, docs/history-rule.md): the option and its refusal by the
engine and the commands, the ban notation, and the plain reference ``tests/reference_history.py``
(hand-made positions where a ban decides, agreement with ``tests/reference.py`` where the rule
changes nothing, the defining equations, symmetry).

Six Men's Morris board (mills: the sides of the two squares; a3-b3, c1-c2, c5-c4, e3-d3 join them):

    5 a5-------c5-------e5
    4 |   b4---c4---d4   |
    3 a3--b3        d3--e3
    2 |   b2---c2---d2   |
    1 a1-------c1-------e1
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from reference import WIN, lookup_whole, masks, solve_reference, solve_whole_reference, start_value
from reference_history import (
    HistoryGen,
    HSubspace,
    ban_changes,
    lookup_history,
    solve_history,
    solve_history_whole,
)

from solver.errors import NotationError, RulesError
from solver.history.tables import IMAGE, MAN, POINT, history_tables
from solver.rules import Position, make_rules
from solver.rules.notation import (
    Ban,
    format_history_position,
    format_point_lists,
    format_position,
    parse_history_position,
    parse_position,
)
from solver.rules.rulesets import RuleSet

SIX3 = make_rules("six", ["men=3"])
SAME_MAN = replace(SIX3, reclose="same-man")
RUNNING = replace(SIX3, reclose="running-mill")


@pytest.fixture(scope="module")
def six3():
    """The six board with 3 men a side, whole (placing, then the subspace 3-3): the plain
    reference, and the history reference under same-man with its defining equations asserted on
    every state (a few seconds)."""
    plain = solve_whole_reference(SIX3)
    same = solve_history_whole(SAME_MAN, check=True)
    return plain, same


def state(rules: RuleSet, text: str):
    """(mover, opp, ban code, pending code) of a position written with the ban suffix."""
    gen = HistoryGen(rules)
    pos, ban, pending = parse_history_position(text, rules)
    return pos.mover, pos.opponent, gen.encode(ban), gen.encode(pending)


def value(result, rules, text):
    return lookup_history(result, *state(rules, text))


# ---- the option ---------------------------------------------------------------------------------


def test_reclose_option_is_stored_like_the_others():
    viking = make_rules("viking", ["reclose=same-man"])
    assert viking.reclose == "same-man" and viking.flying == "never" and viking.removal_from_mills == "forfeit"
    assert viking.describe() == "viking reclose=same-man"
    assert viking.to_dict()["reclose"] == "same-man"
    assert RuleSet.from_dict(viking.to_dict()) == viking
    assert make_rules("standard").reclose == "allowed"
    # a stored rule set from before the option reads as reclose=allowed
    old = {k: v for k, v in make_rules("six").to_dict().items() if k != "reclose"}
    assert RuleSet.from_dict(old) == make_rules("six")
    assert make_rules("standard", ["reclose=running-mill"]).describe() == "standard reclose=running-mill"
    with pytest.raises(RulesError, match="not one of allowed, same-man, running-mill"):
        make_rules("standard", ["reclose=never"])


def test_plain_engine_and_other_commands_refuse_the_history_rule():
    """The plain kernels refuse the history rule; the commands built on ``solver.history``
    (solve, query, info, verify, moves: tests/test_history_cli.py) take it, the others refuse
    it with one line, and so does solve where the history engine lacks an option."""
    from solver.cli import main
    from solver.rules.tables import game_tables

    rules = make_rules("viking", ["reclose=same-man"])
    with pytest.raises(RulesError, match="reclose=same-man is a history rule"):
        rules.kernel_options()
    with pytest.raises(RulesError, match="history rule"):
        game_tables(make_rules("six", ["reclose=running-mill"]))
    make_rules("viking").kernel_options()  # the plain rules still pass
    for args, start in (
        (["bench", "--rules", "six", "-o", "reclose=same-man"], "error: option reclose="),
        (["play", "--rules", "six", "-o", "reclose=same-man"], "error: option reclose="),
        (["rank", "--rules", "six", "-o", "reclose=same-man"], "error: option reclose="),
        (["solve", "--rules", "six", "-o", "reclose=same-man", "-o", "lasker=on", "--dry-run"], "error: the history rule's engine does not handle Lasker"),
        (["solve", "--rules", "six", "-o", "reclose=same-man", "--cluster", "local"], "error: --cluster does not go with the history rule"),
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(start), result.stderr
        assert "Traceback" not in result.output


# ---- the notation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,options",
    [("six", ["reclose=same-man"]), ("six", ["reclose=running-mill"]), ("standard", ["men=3", "reclose=same-man"]),
     ("viking", ["reclose=running-mill"]), ("twelve", ["reclose=running-mill"])],
)
def test_ban_notation_round_trips(name, options):
    """Random positions with every admissible (ban, pending) pair: written, read back, the same
    state; both position forms read."""
    rules = make_rules(name, options)
    gen = HistoryGen(rules)
    board = rules.board_data
    rng = random.Random(23)
    seen = {"ban": 0, "pending": 0, "two mills": 0}
    for _ in range(400):
        a = rng.randint(3, rules.men)
        b = rng.randint(3, rules.men)
        pts = rng.sample(range(board.n), a + b)
        mover, opp = sum(1 << i for i in pts[:a]), sum(1 << i for i in pts[a:])
        side = rng.choice("wb")
        pos = Position.from_mover(side, mover, opp)
        for code in gen.states(mover, opp):
            ban, pending = gen.decode(code >> 10), gen.decode(code & 1023)
            text = format_history_position(pos, board, ban, pending)
            assert parse_history_position(text, rules) == (pos, ban, pending), text
            assert gen.encode(ban) << 10 | gen.encode(pending) == code
            seen["ban"] += ban is not None
            seen["pending"] += pending is not None
            seen["two mills"] += any(len(x.mills) > 1 for x in (ban, pending) if x is not None)
            # the point-lists form reads the same
            lists = format_point_lists(pos, board) + text[len(format_position(pos, board)):]
            assert parse_history_position(lists, rules) == (pos, ban, pending), lists
    assert seen["ban"] > 20 and seen["pending"] > 20
    if rules.reclose == "running-mill" and name != "six":
        assert seen["two mills"] > 0


def test_ban_notation_by_hand_and_bad_input():
    viking = make_rules("viking", ["reclose=same-man"])
    board = viking.board_data
    pos, ban, pending = parse_history_position("W:d1,g1,b2 B:c4,d3,e3 w ban b2-a1 pending c4-c3", viking)
    assert ban == Ban(board.index["b2"], board.index["a1"]) and pending == Ban(board.index["c4"], board.index["c3"])
    assert format_history_position(pos, board, ban, pending).endswith(" w ban b2-a1 pending c4-c3")
    running = make_rules("standard", ["reclose=running-mill"])
    pos, ban, pending = parse_history_position("W:d2,g4,g7 B:a4,b4,c4,d1,g1 b ban a1(g1-d1-a1)", running)
    assert ban == Ban(-1, board.index["a1"], (board.mills.index(("a1", "d1", "g1")),)) and pending is None
    assert format_history_position(pos, board, ban).endswith(" b ban a1(a1-d1-g1)")
    bad = [
        (viking, "W:d1,g1,b2 B: w ban", "needs a ban"),
        (viking, "W:d1,g1,b2 B: w ban b2-x1", "unknown point"),
        (viking, "W:d1,g1,b2 B: w ban b2-b2", "another point"),
        (viking, "W:d1,g1,b2 B: w ban d1-a1", None),  # fine: d1's man left a1 (g1, d1 stay... ) is checked below
        (viking, "W:a1,d1,g1 B: w ban b2-a1", "a1 is not empty"),
        (viking, "W:d1,g1 B:b2 w ban b2-a1", "no man of the side to move on b2"),
        (viking, "W:d1,g1,b2 B: w pending b2-a1", "no man of the opponent"),
        (viking, "W:d1,g1,b2 B: w ban a1(a1-d1-g1)", "not a ban of reclose=same-man"),
        (viking, "W:d1,g1,b2 B: w pending b2-a1 ban b2-a1", "'ban' before 'pending'"),
        (viking, "W:d1,g1,b2 B: w ban b2-a1 ban b2-a1", "given twice"),
        (viking, "W:d1,g1,b2 B: w ban b2-a1 junk", "unexpected"),
        (make_rules("viking"), "W:d1,g1,b2 B: w ban b2-a1", "only under the history rule"),
        (running, "W:d1,g1,b2 B: b 0 1 ban a1(a1-d1-g1)", "no man may be in hand"),
        (running, "W:d1,g1 B: w ban a1(a1-d1-g1,a1-a4-a7)", "a1-a4-a7 lacks a man of the side to move"),
        (running, "W:d1,g1 B: w ban a1(a1-d1-g2)", "unknown point"),
        (running, "W:d1,g1 B: w ban a1(a1-d1-d2)", "not a mill"),
        (running, "W:d1,g1 B: w ban a4(a1-d1-g1)", "does not pass through a4"),
        (running, "W:d1,g1 B:a4,a7 w ban a1(a1-d1-g1) pending a1(a1-a4-a7)", "both be on one point"),
    ]
    for rules, text, message in bad:
        if message is None:
            parse_history_position(text, rules)
            continue
        with pytest.raises(NotationError, match=message):
            parse_history_position(text, rules)
    with pytest.raises(NotationError, match="history rule"):
        parse_position("W:d1,g1,b2 B: w ban b2-a1", viking)


# ---- the reference against tests/reference.py --------------------------------------------------


def test_allowed_is_the_plain_game(six3):
    """With reclose=allowed the history reference has no records: its states are the plain
    positions and its values and plies those of tests/reference.py, in every tier of the whole
    game (a check of its graph, and of the placing tiers valued through its moving ones)."""
    plain, _ = six3
    allowed = solve_history_whole(SIX3)
    assert set(allowed) == set(plain)
    got = allowed[(3, 3, 0, 0)]
    assert isinstance(got, HSubspace) and len(got.value) == 160_160
    assert not got.ban.any() and not got.pending.any()
    for tier, want in plain.items():
        got = allowed[tier].plain() if isinstance(allowed[tier], HSubspace) else allowed[tier]
        for field in ("mover", "opp", "value", "plies"):
            assert np.array_equal(getattr(got, field), getattr(want, field)), (tier, field)
    # Three Men's Morris: a mill wins at once, so in a game no move opens one and nothing changes.
    # Only the boards no game reaches, where the side to move already has a mill (its opponent
    # would have lost when it was closed), may open it and change; a move never leads into them.
    three = make_rules("three")
    result = solve_history_whole(replace(three, reclose="same-man"), check=True)
    three_plain = solve_whole_reference(three)
    assert start_value(result, three) == start_value(three_plain, three) == ("win", 9)
    gen = HistoryGen(replace(three, reclose="same-man"))
    changed = 0
    for tier, want in three_plain.items():
        got = result[tier].plain() if isinstance(result[tier], HSubspace) else result[tier]
        for i in np.nonzero((got.value != want.value) | (got.plies != want.plies))[0].tolist():
            assert gen.has_mill(int(got.mover[i])), (tier, i)
            changed += 1
    assert changed > 0
    with pytest.raises(ValueError, match="Lasker"):
        solve_history_whole(make_rules("six", ["men=3", "lasker=on", "reclose=same-man"]))


def test_same_man_changes_values_where_it_should(six3):
    """Under same-man the plain positions of 3-3 keep their values but for 2,552 (and 1,280 keep
    the value at another depth): only positions with a mill to open, or a mill the opponent opens,
    can change; every state with a record compares with the plain position and differs only there."""
    plain, same = six3
    changes = ban_changes(same, plain)
    assert changes[(3, 3, 0, 0)] == {
        "positions": 160_160, "states": 170_992, "changed": 2_552, "deeper": 1_280,
        "wins": 70_992, "draws": 59_200, "losses": 29_968,
    }
    # the placing positions change only through the moving ones: the last placement (White's hand
    # 1, Black's 0) into 3-3; the start stays a draw
    assert {t for t, row in changes.items() if row["changed"] or row["deeper"]} == {(3, 3, 0, 0), (2, 3, 1, 0)}
    assert changes[(2, 3, 1, 0)]["changed"] == 288
    assert start_value(same, SIX3) == start_value(plain, SIX3) == ("draw", None)
    rules = SAME_MAN
    gen = HistoryGen(rules)
    s = same[(3, 3, 0, 0)].plain()
    # a changed position: one side has a mill (it may open it) or can close one
    changed = np.nonzero(s.value != plain[(3, 3, 0, 0)].value)[0]
    for i in changed[:300].tolist():
        m, o = int(s.mover[i]), int(s.opp[i])
        assert gen.has_mill(m) or gen.has_mill(o) or gen.records(m, o) or gen.records(o, m)


# ---- hand-made positions where the ban decides ----------------------------------------------------


def test_open_and_close_wins_only_without_the_ban(six3):
    """White a1 a3 a5 (the mill a1-a3-a5), Black b2 c1 c4, White to move, three men a side (a
    removal wins).

    Without the ban White wins in 3: a3-b3 opens the mill, and Black cannot reach a3 (its
    neighbours a1, a5, b3 are White's), so b3-a3 closes it again and takes a man. With the Viking
    ban b3-a3 is forbidden on White's next move; Black answers c4-c5, and then whatever White does
    lets Black block: b3-b4 lets b2-b3 and then b3-a3; a1-a3 lets c1-a1; a5-a3 lets c5-a5. Black
    must find c4-c5 (every other reply loses in 5: White wastes a move with a man the blockade
    cannot reach, and closes the mill on the move after)."""
    plain, same = six3
    rules = SAME_MAN
    b = rules.board_data
    mover, opp = masks(b, "a1 a3 a5", "b2 c1 c4")
    assert lookup_whole(plain, mover, opp, 0, 0) == ("win", 3)
    assert value(same, rules, "W:a1,a3,a5 B:b2,c1,c4 w") == ("draw", None)
    # after a3-b3 Black is to move and White's ban is pending
    assert value(same, rules, "W:a1,a5,b3 B:b2,c1,c4 b pending b3-a3") == ("draw", None)
    assert value(same, rules, "W:a1,a5,b3 B:b2,c1,c4 b") == ("loss", 2)  # the plain position
    gen = HistoryGen(rules)
    after_c5 = state(rules, "W:a1,a5,b3 B:b2,c1,c5 w ban b3-a3")
    assert lookup_history(same, *after_c5) == ("draw", None)
    assert [b.points[mv[0]] + "-" + b.points[mv[1]] for mv in gen.legal(*after_c5[:3])] == ["a1-a3", "a5-a3", "b3-b4"]
    # every other reply of Black's lets White win in 5 more plies
    before = state(rules, "W:a1,a5,b3 B:b2,c1,c4 b pending b3-a3")
    replies = {}
    for (frm, to, m2, o2, made), nxt in zip(gen.legal(*before[:3]), gen.successors(*before)):
        replies[f"{b.points[frm]}-{b.points[to]}"] = lookup_history(same, *nxt)
    assert replies.pop("c4-c5") == ("draw", None)
    assert set(replies) == {"b2-c2", "c1-c2", "c1-e1", "c4-b4", "c4-d4"}
    assert set(replies.values()) == {("win", 5)}


def forced_win(rules: RuleSet, mover: int, opp: int, plies: int, ban: int = 0, pending: int = 0):
    """The fewest odd plies (1, 3, ... up to ``plies``) within which the side to move forces a win
    under ``rules`` (history rule included), or None: a plain depth-limited search over
    ``HistoryGen.successors``, each (state, depth) answered once."""
    from functools import lru_cache

    gen = HistoryGen(rules)

    @lru_cache(maxsize=None)
    def wins(st, d):
        succ = gen.successors(*st)
        if any(n is None for n in succ):
            return True
        return d >= 3 and any(loses(n, d - 1) for n in succ)

    @lru_cache(maxsize=None)
    def loses(st, d):
        succ = gen.successors(*st)
        if not succ:
            return True
        return not any(n is None for n in succ) and all(wins(n, d - 1) for n in succ)

    return next((d for d in range(1, plies + 1, 2) if wins((mover, opp, ban, pending), d)), None)


def test_running_mill_on_the_standard_board_wins_only_without_the_ban():
    """The running mill (Zwickmuehle) proper: a man shuttling between two mills, closing one at
    each move. Viking rules (standard board, no flying), White a1 g1 b2 d2 f2: the man on d2 closes
    a1-d1-g1 by d2-d1 and b2-d2-f2 by d1-d2. Black c3 d3 d5 e4 e5, to move second.

    Without the ban White wins in 5: d2-d1 takes d3 (the man that could step into d2, and the one
    that would close e3-e4-e5), Black's best is c3-d3 (again threatening d3-d2 and d3-e3), d1-d2
    takes it, and d2-d1 takes the next man: Black is left with 2. Black never has a man next to the
    shuttle's empty point in time. Under either reading the ban forbids d1-d2 (or any closing of
    b2-d2-f2) right after d2-d1: White must spend a move elsewhere, and Black's d3 steps into d2
    (or closes e3-e4-e5 by d3-e3, taking a man). The search below proves White has no win within
    9 plies under either reading (nor within 11, a slower run), and Black none within 8 either; the
    position's full value is beyond the plain reference (a standard-board subspace with 5 men a
    side holds 165 M positions). On the six board no running mill can be stopped (both points of
    each have only the runner's men as other neighbours): there the ban only makes it slower
    (``test_six_running_mill_is_only_slower``)."""
    b = make_rules("viking").board_data
    mover, opp = masks(b, "a1 g1 b2 d2 f2", "c3 d3 d5 e4 e5")
    assert forced_win(make_rules("viking"), mover, opp, 9) == 5
    for reading in ("same-man", "running-mill"):
        rules = make_rules("viking", [f"reclose={reading}"])
        assert forced_win(rules, mover, opp, 9) is None, reading
        # Black, to move after any White move, cannot force a win within 7 plies (8 in all)
        gen = HistoryGen(rules)
        for nxt in gen.successors(mover, opp):
            assert forced_win(rules, *nxt[:2], 7, *nxt[2:]) is None
        # the line: d2-d1xd3 c3-d3, and the shuttle's return is forbidden
        line = [mv for mv in gen.legal(mover, opp) if (b.points[mv[0]], b.points[mv[1]]) == ("d2", "d1")]
        after = [n for mv, n in zip(gen.legal(mover, opp), gen.successors(mover, opp)) if mv in line]
        after_d3 = after[[b.points[(opp & ~mv[3]).bit_length() - 1] for mv in line].index("d3")]
        names = lambda st: [f"{b.points[f]}-{b.points[t]}" for f, t, *_ in gen.legal(*st[:3])]  # noqa: E731
        white = dict(zip(names(after_d3), gen.successors(*after_d3)))["c3-d3"]
        assert white[2] != 0  # White's ban is now active: d1-d2 is gone from its moves
        assert "d1-d2" not in names(white) and "d1-d2" in names(white[:2] + (0,))


def test_only_the_pending_ban_decides(six3):
    """White a1 a3 b2, Black b4 c4 d3, White to move, no ban of White's. Plain, White has lost in
    2: Black's d3-d4 closes b4-c4-d4 and White cannot reach d4 (its neighbours c4, d3 are Black's).
    If Black's last move was d4-d3 (out of that mill), Black's ban is pending: d3-d4 is forbidden on
    Black's next move, and White, a tempo up, wins in 5. Same board, same side to move, no ban of
    the side to move: only the opponent's pending ban differs. (A state holding only the side to
    move's ban, as the issue first put it, could not tell these apart.)"""
    plain, same = six3
    rules = SAME_MAN
    assert value(same, rules, "W:a1,a3,b2 B:b4,c4,d3 w") == ("loss", 2)
    assert value(same, rules, "W:a1,a3,b2 B:b4,c4,d3 w pending d3-d4") == ("win", 5)
    # after White's b2-b3 the pending ban is Black's active one: every Black move loses in 3
    gen = HistoryGen(rules)
    s = state(rules, "W:a1,a3,b3 B:b4,c4,d3 b ban d3-d4")
    assert lookup_history(same, *s) == ("loss", 4)
    assert all(nxt is not None and lookup_history(same, *nxt) == ("win", 3) for nxt in gen.successors(*s))


def test_a_removal_voids_the_pending_ban():
    """Viking rules (standard board, no flying), White to move: White a7 d7 g4 d1, Black b2 f2 d3
    b6, and Black's last move was d2-d3, out of its mill b2-d2-f2: pending d3-d2 (Black may not
    go straight back). White's g4-g7 closes a7-d7-g7 and removes a man: taking b2 or f2 (a man of
    the opened mill) or d3 (the banned man) voids the ban, and the position after is plain;
    taking b6 leaves it, so Black's next move may not be d3-d2. White's d1-d2 fills the point and
    voids it as well; any other quiet move keeps it."""
    rules = make_rules("viking", ["men=4", "reclose=same-man"])
    b = rules.board_data
    gen = HistoryGen(rules)
    mover, opp, ban, pending = state(rules, "W:a7,d7,g4,d1 B:b2,f2,d3,b6 w pending d3-d2")
    assert pending == gen.encode(Ban(b.index["d3"], b.index["d2"])) and ban == 0
    active = {}  # White's move -> Black's active ban after it
    for frm, to, m2, o2, made in gen.legal(mover, opp, ban):
        name = f"{b.points[frm]}-{b.points[to]}"
        if o2 != opp:
            name += "x" + b.points[(opp & ~o2).bit_length() - 1]
        active[name] = gen.live(pending, o2, m2)
    assert {k for k in active if "x" in k} == {"g4-g7xb2", "g4-g7xf2", "g4-g7xd3", "g4-g7xb6"}
    assert active["g4-g7xb2"] == active["g4-g7xf2"] == active["g4-g7xd3"] == 0
    assert active["g4-g7xb6"] == pending
    assert active["d1-d2"] == 0
    assert all(active[k] == pending for k in active if "x" not in k and k != "d1-d2")
    # the successor states carry the same: Black to move with the ban only after g4-g7xb6 and the
    # quiet moves other than d1-d2
    succ = gen.successors(mover, opp, ban, pending)
    assert sorted(s[2] for s in succ) == sorted(active.values())
    # and with the ban Black may not play d3-d2 (without it, it may)
    after_b6 = masks(b, "b2 f2 d3", "a7 d7 g7 d1")
    moves = lambda ban: {f"{b.points[f]}-{b.points[t]}" for f, t, *_ in gen.legal(*after_b6, ban)}  # noqa: E731
    assert moves(0) - moves(pending) == {"d3-d2"}


def test_records_are_canonical_and_closed():
    """Every successor's records are live (canonical) and among the admissible records of the
    successor position, the record a move makes is live at once, and a move makes one exactly
    when it leaves a mill (same-man) or leaves one and closes another (running-mill). Random
    positions of several boards and options, flying included."""
    rng = random.Random(5)
    made_seen = {"same-man": 0, "running-mill": 0}
    for name, options in [
        ("standard", ["men=3"]), ("standard", ["men=4"]), ("no-flying", ["men=5"]), ("six", []),
        ("twelve", ["double-mill=per-mill"]), ("six", ["blocked=passes"]), ("viking", []),
    ]:
        for reading in ("same-man", "running-mill"):
            rules = make_rules(name, options + [f"reclose={reading}"])
            gen = HistoryGen(rules)
            n = rules.board_data.n
            for _ in range(150):
                a, b2 = rng.randint(3, rules.men), rng.randint(3, rules.men)
                pts = rng.sample(range(n), a + b2)
                m, o = sum(1 << i for i in pts[:a]), sum(1 << i for i in pts[a:])
                for code in gen.states(m, o):
                    ban, pending = code >> 10, code & 1023
                    assert gen.live(ban, m, o) == ban and gen.live(pending, o, m) == pending
                    for frm, to, m2, o2, made in gen.legal(m, o, ban):
                        left = any(m & mill == mill for mill in gen.mills if (mill >> frm) & 1)
                        closes = gen.mills_closed(m2, to) > 0
                        want = left if reading == "same-man" else left and closes
                        assert (made != 0) == want
                        if o2.bit_count() < 3:
                            continue
                        made_seen[reading] += made != 0
                        assert gen.live(made, m2, o2) == made
                        nxt = gen.live(pending, o2, m2) << 10 | made
                        assert nxt in gen.states(o2, m2)
    assert made_seen["same-man"] > 100 and made_seen["running-mill"] > 10, made_seen


@pytest.mark.parametrize("name", ["viking", "standard", "twelve", "six"])
@pytest.mark.parametrize("reading", ["same-man", "running-mill"])
def test_record_tables_match_the_records_read_by_hand(name, reading):
    """The engine's per-code table (``HistoryTables.rec``: a record's point, its man, its image
    under each symmetry), read where the kernels once divided by n, against the reference's own
    decoding: every record a position can hold, moved by each symmetry point by point (a
    running-mill record's mills by their point sets)."""
    rules = make_rules(name, [f"reclose={reading}"])
    gen, ht = HistoryGen(rules), history_tables(rules)
    board = rules.board_data
    mills = [int(m) for m in board.mill_masks]
    checked = 0
    for p in range(board.n):
        if reading == "same-man":
            bans = [Ban(q, p) for q in range(board.n) if q != p]
        else:
            through = [k for k, m in enumerate(mills) if (m >> p) & 1]
            bans = [Ban(-1, p, tuple(k for j, k in enumerate(through) if sub >> j & 1)) for sub in range(1, 1 << len(through))]
        for ban in bans:
            code = gen.encode(ban)
            assert ht.rec[code, POINT] == p == gen.point(code)
            assert ht.rec[code, MAN] == (ban.frm if reading == "same-man" else 0)
            for g, perm in enumerate(board.symmetries):
                if reading == "same-man":
                    image = Ban(perm[ban.frm], perm[p])
                else:
                    moved = [sum(1 << perm[q] for q in range(board.n) if mills[k] >> q & 1) for k in ban.mills]
                    image = Ban(-1, perm[p], tuple(sorted(mills.index(m) for m in moved)))
                assert ht.rec[code, IMAGE + g] == gen.encode(image), (ban, g)
                checked += 1
    assert ht.rec[0].tolist() == [0] * ht.rec.shape[1]  # no record: none under every symmetry
    assert checked >= board.n * len(board.symmetries)  # at least one record a point


def test_symmetric_states_have_equal_values(six3):
    """Each of the six board's symmetries maps a state (men and records) to one of equal value
    and depth."""
    _, same = six3
    rules = SAME_MAN
    board = rules.board_data
    gen = HistoryGen(rules)
    s = same[(3, 3, 0, 0)]
    rng = np.random.default_rng(1)
    with_records = np.nonzero((s.ban != 0) | (s.pending != 0))[0]
    picks = np.concatenate([rng.choice(with_records, 200, replace=False), rng.choice(len(s.value), 50, replace=False)])

    def image(perm, mask):
        return sum(1 << perm[i] for i in range(board.n) if mask >> i & 1)

    def image_ban(perm, code):
        ban = gen.decode(code)
        if ban is None:
            return 0
        return gen.encode(Ban(perm[ban.frm], perm[ban.to]))

    for i in picks.tolist():
        m, o, ban, pending = int(s.mover[i]), int(s.opp[i]), int(s.ban[i]), int(s.pending[i])
        want = lookup_history(same, m, o, ban, pending)
        for perm in board.symmetries:
            got = lookup_history(same, image(perm, m), image(perm, o), image_ban(perm, ban), image_ban(perm, pending))
            assert got == want


# ---- bigger games (-m slow) ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("reading", ["allowed", "same-man", "running-mill"])
def test_six_men4_moving_phase(reading):
    """The six board with 4 men, moving phase (about 30 s a reading): every state's equations;
    reclose=allowed is the plain game, running-mill changes nothing (a move that opens one mill
    and closes another needs 5 men here: the two mills share no point of a slide), same-man
    changes 112,568 values. (Default run: the same checks on 3 men.)"""
    rules = make_rules("six", ["men=4", f"reclose={reading}"])
    result = solve_history(rules, check=True)
    plain = solve_reference(make_rules("six", ["men=4"]))
    changes = ban_changes(result, plain)
    changed = sum(row["changed"] for row in changes.values())
    states = sum(row["states"] for row in changes.values())
    assert {"allowed": 0, "same-man": 112_568, "running-mill": 0}[reading] == changed
    assert {"allowed": 1_861_860, "same-man": 2_201_156, "running-mill": 2_210_388}[reading] == states


@pytest.mark.slow
def test_six_running_mill_is_only_slower():
    """Six Men's Morris, White a1 a3 a5 b2 b4 (the man on a3 shuttles a3-b3-a3, closing
    b2-b3-b4 and a1-a3-a5 in turn), Black c2 d3 e1 e5. Black can never step into a3 or b3: their
    other neighbours are White's. Without the ban White wins in 3 (two captures); with either ban
    White spends a move between them and wins in 5. (The subspaces of 5 against 4 men and those
    they lead to: a few minutes a reading.)"""
    b = make_rules("six").board_data
    mover, opp = masks(b, "a1 a3 a5 b2 b4", "c2 d3 e1 e5")
    from reference import lookup

    assert lookup(solve_reference(make_rules("six"), subspaces=[(5, 4)]), mover, opp) == ("win", 3)
    for reading in ("same-man", "running-mill"):
        result = solve_history(make_rules("six", [f"reclose={reading}"]), subspaces=[(5, 4)])
        assert lookup_history(result, mover, opp) == ("win", 5)


@pytest.mark.slow
def test_six_running_mill_without_a_spare_move_loses():
    """Six Men's Morris, White a1 a3 a5 b2 b4 (the running mill a3-b3), Black c1 c2 c4 c5 d2 d3,
    White to move. Black's men hem in every White man but the runner: a1 and a5 can only step into
    a3, b2 and b4 only into b3. Without the ban White wins in 7: a3-b3, b3-a3, ... closing a mill at
    every move, four removals. With the running-mill ban, after a3-b3 the way back is shut for a
    move and White's only other moves (a1-a3, a5-a3, a5-c5) break a1-a3-a5 for good: Black, a man
    up, wins in 18 (in 20 under same-man, which forbids the same return). (The moving subspaces up
    to 5-6 and 6-5, 25 M states: about 6 minutes a reading; the
    six board's whole game under both readings is recorded in docs/history-rule.md.)"""
    b = make_rules("six").board_data
    mover, opp = masks(b, "a1 a3 a5 b2 b4", "c1 c2 c4 c5 d2 d3")
    from reference import lookup

    assert lookup(solve_reference(make_rules("six"), subspaces=[(5, 6)]), mover, opp) == ("win", 7)
    for reading, want in SIX_NO_SPARE.items():
        result = solve_history(make_rules("six", [f"reclose={reading}"]), subspaces=[(5, 6)])
        assert lookup_history(result, mover, opp) == want, reading


SIX_NO_SPARE = {"running-mill": ("loss", 18), "same-man": ("loss", 20)}


@pytest.mark.slow
def test_standard_men3_whole_game():
    """The standard board with 3 men a side, whole (placing, then moving with flying): the
    values docs/history-rule.md records. About 4 min a reading and 8.5 GiB (5.5 M states of 3-3
    with 294 M edges: every flight that closes a mill is a record)."""
    plain_rules = make_rules("standard", ["men=3"])
    plain = solve_whole_reference(plain_rules)
    for reading in ("same-man", "running-mill"):
        result = solve_history_whole(replace(plain_rules, reclose=reading), check=True)
        start = result[(0, 0, 3, 3)]
        assert isinstance(result[(3, 3, 0, 0)], HSubspace)
        assert (int(start.value[0]), int(start.plies[0])) == STANDARD3_START[reading]
        changed = sum(row["changed"] for row in ban_changes(result, plain).values())
        assert changed == STANDARD3_CHANGED[reading]
    assert start_value(plain, plain_rules) == ("win", 23)


STANDARD3_START = {"same-man": (WIN, 23), "running-mill": (WIN, 23)}  # as the plain game's
STANDARD3_CHANGED = {"same-man": 11_928, "running-mill": 0}
