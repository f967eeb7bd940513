"""Glicko-2's arithmetic: one rating period's update, as Glickman publishes it.

The algorithm is Mark E. Glickman's, step by step as in his "Example of the
Glicko-2 system" (Boston University, 2013; http://www.glicko.net/glicko/glicko2.pdf):
step 2 puts a rating on the Glicko-2 scale, steps 3 and 4 compute the
estimated variance ``v`` and improvement ``delta``, step 5 finds the new
volatility by the Illinois algorithm, steps 6 and 7 the new deviation and
rating, step 8 puts them back on the displayed scale. Names follow the
paper (μ ``mu``, φ ``phi``, σ ``sigma``, τ ``tau``). The paper's worked
example is this module's doctest and a test (tests/test_ratings.py).

Written for quiltmaker from the paper alone, no code copied, so it is under
the project's licence (MIT, see LICENSE). Vendored rather than a dependency
(docs/design.md says why): as Lichess keeps its own Glicko-2 beside its
ratings. What a rating period is, and the policy around it (a new player's
rating, idle growth, the floor on the deviation), is ``ratings.py``'s.

>>> mu, phi = to_glicko2(1500, 200)
>>> games = [(*to_glicko2(1400, 30), 1.0), (*to_glicko2(1550, 100), 0.0), (*to_glicko2(1700, 300), 0.0)]
>>> new = update(mu, phi, 0.06, games, tau=0.5)
>>> rating, rd = from_glicko2(new.mu, new.phi)
>>> f"{rating:.2f} {rd:.2f} {new.sigma:.6f}"
'1464.05 151.52 0.059996'

(The paper prints 1464.06, from μ′ rounded to −0.2069 before step 8, and
σ′ = 0.05999, cut after five places.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

SCALE = 173.7178  # Glickman's step 2: 400 / ln(10), the Glicko-2 scale's unit in rating points
EPSILON = 0.000001  # the convergence tolerance of step 5 (the paper's ε)
MAX_ITERATIONS = 100  # step 5 takes at most about 20 (50,000 random periods); a bound, so that a NaN never loops forever


class Updated(NamedTuple):
    """A player's rating after a rating period, on the Glicko-2 scale."""

    mu: float
    phi: float
    sigma: float


def to_glicko2(rating: float, rd: float) -> tuple[float, float]:
    """Step 2: a rating and its deviation on the Glicko-2 scale, (μ, φ)."""
    return (rating - 1500) / SCALE, rd / SCALE


def from_glicko2(mu: float, phi: float) -> tuple[float, float]:
    """Step 8: a Glicko-2 (μ, φ) back on the displayed scale, (rating, deviation)."""
    return SCALE * mu + 1500, SCALE * phi


def g(phi: float) -> float:
    """Step 3's g(φ): how much an opponent's uncertainty discounts a result against them."""
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Step 3's E(μ, μ_j, φ_j): the expected score against opponent ``j``."""
    return 1 / (1 + math.exp(-g(phi_j) * (mu - mu_j)))


def idle(phi: float, sigma: float, periods: float = 1.0) -> float:
    """Step 6 for a player without games: the deviation after ``periods`` rating periods, sqrt(φ² + periods·σ²).

    One period is Glickman's rule; a number of them (not necessarily whole,
    as Lichess counts them) is the rule applied that often, σ being
    unchanged by a period without games.
    """
    return math.sqrt(phi**2 + periods * sigma**2)


def update(mu: float, phi: float, sigma: float, games: Sequence[tuple[float, float, float]], tau: float) -> Updated:
    """Steps 3 to 7: the player's (μ′, φ′, σ′) after a rating period of ``games``, each (μ_j, φ_j, score).

    A score is 1 for a win, 0.5 for a draw and 0 for a loss. ``tau`` is the
    system constant that bounds how fast volatility changes (Glickman
    suggests 0.3 to 1.2). A period without games only widens the deviation
    (step 6): μ and σ stay as they are.
    """
    if not games:
        return Updated(mu, idle(phi, sigma), sigma)
    v, delta = estimate(mu, games)
    # Step 5: the new volatility.
    sigma_new = volatility(phi, sigma, v, delta, tau)
    # Steps 6 and 7: the deviation widened by the new volatility, then narrowed by the games; the rating moved.
    phi_star = idle(phi, sigma_new)
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu_new = mu + phi_new**2 * delta / v  # the paper's φ′² Σ g(φ_j)(s_j − E): Δ is v times that sum
    return Updated(mu_new, phi_new, sigma_new)


def estimate(mu: float, games: Sequence[tuple[float, float, float]]) -> tuple[float, float]:
    """Steps 3 and 4: from a period's ``games`` (at least one), the estimated variance ``v`` of the player's
    rating by the games alone, and the estimated improvement ``delta`` (the results against what the ratings expected)."""
    v = 1 / sum(g(phi_j) ** 2 * expected(mu, mu_j, phi_j) * (1 - expected(mu, mu_j, phi_j)) for mu_j, phi_j, _ in games)
    return v, v * sum(g(phi_j) * (score - expected(mu, mu_j, phi_j)) for mu_j, phi_j, score in games)


def volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility σ′, the root of Glickman's f found by the Illinois algorithm (regula falsi).

    Raises:
        ArithmeticError: if the iteration does not converge (only with non-finite inputs).
    """
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    # Step 5.2: bracket the root between A and B.
    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    # Steps 5.3 and 5.4: narrow the bracket; halving f_A when the same end stays is what makes it Illinois.
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            # Step 5.5.
            return math.exp(big_a / 2)
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    raise ArithmeticError(f"Glicko-2's volatility did not converge (phi={phi}, sigma={sigma}, v={v}, delta={delta}, tau={tau})")
