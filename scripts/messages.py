"""The catalogues' upkeep, with Babel: extract the marked words, bring every catalogue up to date, start a new one.

    python scripts/messages.py update      # make messages: new words come untranslated, changed ones fuzzy
    python scripts/messages.py init xx     # make language CODE=xx: a new language's catalogue
    python scripts/messages.py extract F   # the template alone, to F (tests/test_i18n.py reads it)

What is marked, and how, is said in quiltmaker/i18n.py; where it is looked for, in babel.cfg.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYBABEL = [sys.executable, "-m", "babel.messages.frontend"]
# `t` and `tn` are the page's (quiltmaker/web/static/i18n.js); `_`, `ngettext` and `N_` are among Babel's defaults.
KEYWORDS = ["-k", "t", "-k", "tn:1,2"]
# File names without line numbers, sorted, unwrapped: a catalogue changes only where its words do.
LAYOUT = ["--add-location=file", "--sort-output", "--no-wrap"]
HEADER = "# The words of quiltmaker. Kept up to date by `make messages`; docs/languages.md says how to translate them."


def extract(template: Path) -> None:
    subprocess.run(
        [*PYBABEL, "-q", "extract", "-F", str(ROOT / "babel.cfg"), *KEYWORDS, *LAYOUT, "-c", "translators:",
         "--project", "quiltmaker", "--copyright-holder", "the quiltmaker authors", "--header-comment", HEADER,
         "-o", str(template), "."],
        check=True,
        cwd=ROOT / "quiltmaker",  # the catalogues name files from the package's folder, wherever it is checked out
    )


def _creation_date(catalogue: str) -> str:
    return next(line for line in catalogue.splitlines() if line.startswith('"POT-Creation-Date:'))


def main(argv: list[str]) -> None:
    command, *rest = argv or ["update"]
    locales = str(ROOT / "quiltmaker" / "locales")
    if command == "extract":
        extract(Path(rest[0]))
        return
    with tempfile.TemporaryDirectory() as folder:
        template = Path(folder) / "quiltmaker.pot"
        extract(template)
        if command == "update":
            catalogues = sorted(Path(locales).glob("*/LC_MESSAGES/quiltmaker.po"))
            dates = {path: _creation_date(path.read_text(encoding="utf-8")) for path in catalogues}
            subprocess.run([*PYBABEL, "-q", "update", "-i", str(template), "-d", locales, "-D", "quiltmaker", "--no-wrap", "--ignore-obsolete"], check=True)
            for path, date in dates.items():  # the template's date of today would make every update a change
                text = path.read_text(encoding="utf-8")
                path.write_text(text.replace(_creation_date(text), date, 1), encoding="utf-8")
        elif command == "init" and rest:
            subprocess.run([*PYBABEL, "init", "-i", str(template), "-d", locales, "-D", "quiltmaker", "-l", rest[0], "--no-wrap"], check=True)
        else:
            raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
