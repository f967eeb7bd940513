"""The guides, as the package carries them: ``quiltmaker docs TOPIC`` shows one in the terminal.

The guides are the Markdown files of the repository's ``docs/`` folder. A
wheel carries them as ``quiltmaker/docs/`` (``pyproject.toml`` maps that
package onto ``docs/``); a source checkout reads ``docs/`` itself. So a pip
user has every guide and example the reference site has, without a network.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from .core.errors import QuiltmakerError

REFERENCE = "reference"  # not a guide: the API reference, read from the docstrings (see reference())

# Topic, its file, and what it is for (in the order `quiltmaker docs` lists them).
TOPICS: dict[str, tuple[str, str]] = {
    "overview": ("README.md", "what is here, the Python API in brief, every command and its options"),
    "notation": ("notation.md", "moves and positions as text"),
    "records": ("records.md", "the JSON and text formats of a game record"),
    "terminal": ("terminal.md", "playing in the terminal: keys, screens, saving"),
    "web": ("web.md", "playing in the browser: the server, accounts, lobby, clocks, deployment"),
    "engine-protocol": ("engine-protocol.md", "the engine protocol: writing a bot, matches against it"),
    "environments": ("environments.md", "Gymnasium, PettingZoo, OpenSpiel, the batched environment, self-play data"),
    "strength": ("strength.md", "how strong each level is, and what its win probabilities mean"),
    "puzzles": ("puzzles.md", "puzzles: positions where the solver proves the winning move, and the shipped set"),
    "languages": ("languages.md", "languages: choosing one, how the words are marked, adding a language, the Polish glossary"),
    "benchmarks": ("benchmarks.md", "how fast each part is, measured"),
    "design": ("design.md", "the layout of the code, and why each library"),
}


_CHECKOUT = Path(__file__).resolve().parent.parent  # a source checkout's root, when there is one


def guides_folder() -> Traversable:
    """Where the guides are: inside the installed package, or the checkout's ``docs/`` folder."""
    packaged = resources.files("quiltmaker") / "docs"
    if packaged.is_dir():
        return packaged
    return _CHECKOUT / "docs"


def guide(topic: str) -> str:
    """The Markdown text of one guide.

    Raises:
        QuiltmakerError: There is no guide of that name (the message lists them).
    """
    if topic not in TOPICS:
        raise QuiltmakerError(f"no guide is called {topic!r}; the guides are: {', '.join(TOPICS)}")
    if topic == "overview":
        return _readme()
    return (guides_folder() / TOPICS[topic][0]).read_text(encoding="utf-8")


def _readme() -> str:
    """The README: the file itself in a checkout, the package's long description once installed."""
    if guides_folder() == _CHECKOUT / "docs":
        return (_CHECKOUT / "README.md").read_text(encoding="utf-8")
    from importlib.metadata import metadata

    return str(metadata("quiltmaker").json["description"])


def see(topic: str) -> str:
    """The words that send a reader to a guide, for help texts and error messages."""
    assert topic in TOPICS, topic
    return f"quiltmaker docs {topic}"


def reference(name: str | None = None) -> str:
    """The API reference as text, for a reader without the site.

    With no ``name``: the reference's pages and the modules each documents
    (``docs/reference/``). With a name (a module, class, function or method,
    with or without ``quiltmaker.``: ``Position.play``,
    ``envs.batched.PatchworkBatch``): its documentation, as ``pydoc`` writes it
    from the docstrings the site is built from.

    Raises:
        QuiltmakerError: Nothing of that name is in the package.
    """
    if name is None:
        lines = ["The API reference (quiltmaker docs reference NAME shows one of them, or anything they hold):"]
        pages = sorted((page for page in (guides_folder() / "reference").iterdir() if page.name.endswith(".md")), key=lambda p: p.name)
        for page in pages:
            text = page.read_text(encoding="utf-8").splitlines()
            title = next((line[2:] for line in text if line.startswith("# ")), page.name)
            lines += [f"  {title}", *(f"    {line[4:].strip()}" for line in text if line.startswith("::: "))]
        return "\n".join(lines) + "\n"
    import pydoc

    full = name if name == "quiltmaker" or name.startswith("quiltmaker.") else f"quiltmaker.{name}"
    found = pydoc.locate(full)
    if found is None:
        raise QuiltmakerError(
            f"nothing called {name!r} in quiltmaker: name a module, class or function, such as Position.play or envs.batched.PatchworkBatch"
        )
    return pydoc.render_doc(found, title="%s", renderer=pydoc.plaintext)  # type: ignore[attr-defined]  # (typeshed lacks it)
