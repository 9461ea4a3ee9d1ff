"""Slots of successors: canonical forms set up once per mover set and reused."""

from __future__ import annotations

from ..jit import helper
from ..rules.bits import popcount
from .kernels import G0_MASK, SYM_BITS, SYMMETRIC, canonical_with, colex_rank, image


@helper
def canon_setup(mover, ix, syms):
    """Symmetries that take ``mover`` to its orbit minimum: writes them to syms, returns how many
    (1 unless the minimum has a non-trivial stabiliser)."""
    nsym, sym_img, mask_info = ix.nsym, ix.sym_img, ix.mask_info
    info = mask_info[mover]
    g0 = info & G0_MASK
    if info & SYMMETRIC == 0:
        syms[0] = g0
        return 1
    mc = image(sym_img, g0, mover)
    k = 0
    for g in range(nsym):
        if image(sym_img, g, mover) == mc:
            syms[k] = g
            k += 1
    return k


@helper
def slot_with(mc, rep, other, syms, nsyms, sym_img, per, binom):
    """Slot of (mover, other) given the mover's canonical image mc and its symmetries."""
    oc = image(sym_img, syms[0], other)
    for i in range(1, nsyms):
        x = image(sym_img, syms[i], other)
        if x < oc:
            oc = x
    return rep * per + colex_rank(oc, mc, binom)


@helper
def slot_of(mover, other, ix):
    return slot_from(mover, other, ix.mask_info[mover], ix.binom[ix.n - popcount(mover), popcount(other)], ix)


@helper
def slot_from(mover, other, info, per, ix):
    """``slot_of`` given the mover's ``mask_info`` entry (read by the caller, who may have asked
    for it early: the table is large) and the slots per mover set of the subspace."""
    mc, oc = canonical_with(mover, other, info, ix)
    return (info >> SYM_BITS) * per + colex_rank(oc, mc, ix.binom)
