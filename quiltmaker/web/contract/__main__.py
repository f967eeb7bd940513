"""``python -m quiltmaker.web.contract``: the contract's JSON Schema, which ``make types`` turns into the page's types."""

import sys

from . import schema_text

sys.stdout.write(schema_text())
