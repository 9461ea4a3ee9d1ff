"""Typed errors. The CLI turns each into a one-line message and an exit status, never a traceback."""


class MorrisError(Exception):
    """Base of every error the toolkit raises on bad input or bad files."""

    exit_code = 2


class RulesError(MorrisError, ValueError):
    """An unknown rule set or option, or an option value out of range."""


class NotationError(MorrisError, ValueError):
    """A position or move string that cannot be read, or a position the rules do not allow."""


class IllegalMoveError(NotationError):
    """A well-formed move that is not legal in the position."""


class DatabaseError(MorrisError):
    """A database file that is missing, corrupt, or does not match what was asked."""

    exit_code = 1


class MismatchError(DatabaseError):
    """A database whose rule set, index scheme or format version does not match."""


class MissingSubspaceError(DatabaseError, KeyError):
    """The subspace a position belongs to is not in the database."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class OutsideDatabaseError(DatabaseError):
    """A position the database cannot answer (men in hand: the placing phase)."""


class SubspaceChoiceError(MorrisError):
    """A ``--subspace`` that is malformed or not in the database (bad input: exit status 2)."""


class PlanError(MorrisError):
    """A run that cannot be done here: its peak memory does not fit."""

    exit_code = 1


class DepthOverflow(MorrisError, OverflowError):
    """A depth too long for the uint16 values of the format."""

    exit_code = 1


class ClusterError(MorrisError):
    """A Dask cluster that cannot run the plan: unreachable, without workers, or set up wrongly."""

    exit_code = 1


class NoRanksError(DatabaseError):
    """Ultra-strong play asked of a database without draw ranks (``morris rank`` adds them)."""


class OptionsError(MorrisError):
    """Options of a command that do not go together."""
