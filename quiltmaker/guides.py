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
