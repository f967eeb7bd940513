"""A Griffe extension for the reference site: the docstrings' Sphinx roles become cross-references.

The docstrings name other objects as Sphinx does (``:class:`PatchworkBatch```,
``:func:`~quiltmaker.record.load```), which reads well in ``help()`` and
pydoc. mkdocstrings resolves Markdown cross-references instead, so each role
is rewritten to one (``[`PatchworkBatch`][PatchworkBatch]``), resolved in the
object's scope; one that names nothing fails the strict build.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|data|meth|attr|mod|exc|obj):`(?:([^`<]+?) <)?(~?)([\w.]+)(\(\))?>?`")
LEFT_OVER = re.compile(r":[a-z]+:`")


def absolute(target: str, obj: griffe.Object) -> str:
    """A name relative to the object's package, as in a Python import (``.analysis``), made absolute."""
    dots = len(target) - len(target.lstrip("."))
    if not dots:
        return target
    module = obj.module
    package = module.path.split(".")[: None if module.is_package else -1]
    return ".".join(package[: len(package) - dots + 1] + [target[dots:]])


def crossrefs(text: str, obj: griffe.Object) -> str:
    def as_crossref(match: re.Match[str]) -> str:
        title, short, target, call = match.group(1), match.group(2), match.group(3), match.group(4) or ""
        if title:
            return f"[{title}][{absolute(target, obj)}]"
        shown = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        return f"[`{shown}{call}`][{absolute(target, obj)}]"

    rewritten = ROLE.sub(as_crossref, text)
    if LEFT_OVER.search(rewritten):  # a role of another kind or form: it would be shown raw, unchecked
        raise ValueError(f"{obj.path}: a docstring role this extension does not read: {LEFT_OVER.search(rewritten)}")
    return rewritten


class SphinxRoles(griffe.Extension):
    """Rewrites ``:role:`target``` in every docstring as a scoped Markdown cross-reference."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = crossrefs(obj.docstring.value, obj)
