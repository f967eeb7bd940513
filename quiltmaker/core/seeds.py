"""Seeds: the one rule for every seed the package takes, and the generator they seed.

A seed is an integer from 0 to 2**64 - 1, everywhere: the setup seed of
:meth:`~quiltmaker.core.position.Position.initial` (and so of the engine's
``position start seed``, the environments' ``reset(seed=...)`` and the
batched environment), a player's seed, and the command line's ``--seed``.
Anything else (a negative number, 2**64 or more, ``True``, ``1.5``, ``"7"``)
is refused with :class:`~quiltmaker.core.errors.InvalidSeedError`, before
anything changes. Python's :class:`random.Random` takes any of them, but
folds a negative seed onto its absolute value (``Random(-1)`` is
``Random(1)``) and hashes strings, so one setup would have many names.

What a setup seed means is fixed by this project, not by the Python that
runs it: seed ``s`` is CPython's Mersenne Twister seeded with ``s``
(``init_by_array`` of its 32-bit words), the 32 patch ids other than 0 in
increasing order shuffled by CPython's ``random.shuffle``, patch 0 last,
then ``randrange(2)`` for the first player. The batched environment
re-implements exactly that in compiled code, and a test pins the setups of
a few seeds, so a Python whose ``random`` changed would fail the tests
rather than change old seeds' games. (Records keep the circle itself, so
they replay whatever a seed means.)

>>> check_seed(7)
7
>>> check_seed(-1)
Traceback (most recent call last):
...
quiltmaker.InvalidSeedError: a seed is an integer from 0 to 2**64 - 1, not -1
"""

from __future__ import annotations

import operator
import random

from .errors import InvalidSeedError

SEED_LIMIT = 1 << 64
"""Seeds are below this: 0..2**64 - 1, a uint64."""


def check_seed(seed: object, what: str = "a seed") -> int:
    """``seed`` as a plain ``int``, if it is a seed: an integer (a NumPy one too) from 0 to 2**64 - 1.

    Args:
        seed: The value to check.
        what: What the value is, for the message (``"--seed"``, ``"game 3's seed"``).

    Raises:
        InvalidSeedError: ``seed`` is not such an integer (``bool`` and ``float`` are not).
    """
    value = None
    if not isinstance(seed, bool):
        try:
            value = operator.index(seed)  # type: ignore[arg-type]
        except TypeError:
            pass
    if value is None or not 0 <= value < SEED_LIMIT:
        raise InvalidSeedError(f"{what} is an integer from 0 to 2**64 - 1, not {seed!r}")
    return value


def seeded_random(seed: object | None) -> random.Random:
    """The generator of a seed (:func:`check_seed`), or one from fresh entropy for ``None``."""
    return random.Random(None if seed is None else check_seed(seed))


def derived_seed(value: int) -> int:
    """A seed computed from another (``seed * 1_000_003 + game``), kept in range by wrapping at 2**64.

    Below 2**64 it is the value itself, so seeds computed before wrapping existed mean what they did.
    """
    return value % SEED_LIMIT
