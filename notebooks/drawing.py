"""Boards drawn with matplotlib, for the notebooks beside this file (public API only).

A point's place comes from its name, as on the README's diagrams: the file letter gives x (a = 0),
the rank number gives y (1 = 0). Lines are the board's drawn lines; White men are white discs,
Black men black ones; a move is an arrow (or a ring for a placement), a removal a red cross.
"""

from __future__ import annotations

import matplotlib.pyplot as plt


def point_xy(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a"), int(name[1:]) - 1


def draw_position(ax, board, position, title: str = "", move=None) -> None:
    """Draw ``position`` (a ``solver.api.Position``) on ``board`` (``db.board``) into ``ax``;
    ``move`` (a ``Move``) is marked: where the man came from, and the man it removed."""
    xy = [point_xy(p) for p in board.points]
    for line in board.lines:
        pts = [point_xy(p) for p in line]
        ax.plot([x for x, _ in pts], [y for _, y in pts], color="0.55", lw=1.2, zorder=1)
    ax.scatter([x for x, _ in xy], [y for _, y in xy], s=12, color="0.55", zorder=2)
    for colour, mask, face in (("W", position.white, "white"), ("B", position.black, "black")):
        pts = [xy[i] for i in range(board.n) if mask >> i & 1]
        if pts:
            ax.scatter([x for x, _ in pts], [y for _, y in pts], s=260, c=face, edgecolors="black", linewidths=1.3, zorder=3)
    if move is not None:
        if move.frm >= 0 and move.to >= 0:
            (x0, y0), (x1, y1) = xy[move.frm], xy[move.to]
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=4,
                        arrowprops=dict(arrowstyle="->", color="tab:blue", lw=2, shrinkA=8, shrinkB=8))
        elif move.to >= 0:
            ax.scatter(*xy[move.to], s=520, facecolors="none", edgecolors="tab:blue", linewidths=2, zorder=4)
        for r in move.removals:
            ax.scatter(*xy[r], marker="x", s=160, color="tab:red", linewidths=2.5, zorder=5)
    size = max(max(x for x, _ in xy), max(y for _, y in xy))
    ax.set_xlim(-0.6, size + 0.6)
    ax.set_ylim(-0.6, size + 0.6)
    ax.set_aspect("equal")
    ax.set_xticks(range(size + 1), [chr(ord("a") + i) for i in range(size + 1)])
    ax.set_yticks(range(size + 1), [str(i + 1) for i in range(size + 1)])
    ax.tick_params(length=0, labelsize=7)
    for side in ax.spines.values():
        side.set_visible(False)
    if title:
        ax.set_title(title, fontsize=9)


def board_grid(count: int, columns: int = 4, size: float = 2.4):
    """A figure with ``count`` board axes in rows of ``columns`` (unused axes hidden)."""
    rows = max(1, -(-count // columns))
    fig, axes = plt.subplots(
        rows, columns, figsize=(columns * size, rows * size * 1.15), squeeze=False, constrained_layout=True
    )
    flat = axes.ravel()
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]
