"""Rules-engine speed on one core: uniform-random games and move generations per second.

Run: ``python benchmarks/rules_speed.py [seconds]``. The same figures come from
``quiltmaker bench``; warm-up is excluded. Results go in docs/benchmarks.md.
"""

from __future__ import annotations

import json
import sys

from quiltmaker.bench import run_benchmarks

if __name__ == "__main__":
    print(json.dumps(run_benchmarks(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0), indent=2))
