"""Research environments: Patchwork for Gymnasium, PettingZoo and OpenSpiel.

All three share one observation encoding (:mod:`quiltmaker.envs.observation`,
NumPy only) and quiltmaker's fixed action index (7,431 actions with a legal
mask). Each adapter lives in its own module and imports its library only when
that module is imported, so ``import quiltmaker.envs`` needs none of them:

* :mod:`quiltmaker.envs.gymnasium_env`: ``PatchworkEnv``, one agent against a
  quiltmaker level, registered as ``quiltmaker/Patchwork-v0``;
* :mod:`quiltmaker.envs.pettingzoo_env`: ``env()``, an AEC environment for two
  agents whose turns follow the time track;
* :mod:`quiltmaker.envs.openspiel_game`: ``python_patchwork``, a registered
  OpenSpiel Python game;
* :mod:`quiltmaker.envs.batched`: ``PatchworkBatch``, N games stepped by one
  compiled call, as NumPy arrays (pgx style; needs no environment library);
* :mod:`quiltmaker.envs.vector_env`: ``PatchworkVectorEnv``, that batch as a
  Gymnasium ``VectorEnv`` (what ``gym.make_vec`` builds).

The libraries come with the ``envs`` extra: ``pip install 'quiltmaker[envs]'``.
The names below are also reachable from this package, importing their module
on first use. See ``docs/environments.md`` for the observation layout.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "PatchworkEnv": "gymnasium_env",
    "ENV_ID": "gymnasium_env",
    "PatchworkAECEnv": "pettingzoo_env",
    "PatchworkGame": "openspiel_game",
    "PatchworkBatch": "batched",
    "PatchworkVectorEnv": "vector_env",
    "encode": "observation",
    "action_mask": "observation",
    "LAYOUT": "observation",
    "OBSERVATION_SIZE": "observation",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
