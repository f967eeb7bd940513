"""The documentation a pip user has: the guides in the wheel, ``quiltmaker docs``, and the pointers to them."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from helpers import run_cli

import pytest

import quiltmaker
from quiltmaker.guides import TOPICS, guide, guides_folder

REPOSITORY = Path(quiltmaker.__file__).parent.parent
DOCS = REPOSITORY / "docs"


def test_every_guide_is_a_topic_and_every_topic_a_guide() -> None:
    """A new guide in docs/ is listed by ``quiltmaker docs`` (the site's front page is not a guide)."""
    files = {path.name for path in DOCS.glob("*.md")} - {"index.md"}
    assert files == {name for name, _ in TOPICS.values()} - {"README.md"}


@pytest.mark.parametrize("topic", list(TOPICS))
def test_a_guide_prints_its_markdown_when_not_in_a_terminal(tmp_path: Path, topic: str) -> None:
    result = run_cli(tmp_path, "docs", topic)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    source = REPOSITORY / "README.md" if topic == "overview" else DOCS / TOPICS[topic][0]
    assert result.stdout == source.read_text(encoding="utf-8") == guide(topic)


def test_docs_lists_the_topics_and_where_they_are(tmp_path: Path) -> None:
    listing = run_cli(tmp_path, "docs")
    assert listing.returncode == 0
    for topic, (_, about) in TOPICS.items():
        assert f"  {topic}" in listing.stdout and about in listing.stdout
    where = run_cli(tmp_path, "docs", "--where")
    assert Path(where.stdout.strip()) == DOCS == Path(str(guides_folder()))


def test_an_unknown_guide_is_a_one_line_error_naming_them_all(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "docs", "rulez")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "'rulez'" in result.stderr and all(topic in result.stderr for topic in TOPICS)


def test_help_and_errors_point_to_a_guide_that_exists(tmp_path: Path) -> None:
    top = " ".join(run_cli(tmp_path, "--help").stdout.split())
    assert "'quiltmaker docs' lists them" in top and "'quiltmaker docs TOPIC' shows one" in top
    (tmp_path / "bad.txt").write_text("not a record\n", encoding="utf-8")
    cases = {("replay", "bad.txt"): "records", ("analyse", "nonsense"): "notation", ("play", "--opponent", "nobody"): "strength"}
    for args, topic in cases.items():
        result = run_cli(tmp_path, *args)
        assert result.returncode == 2 and result.stderr.rstrip().endswith(f"(see: quiltmaker docs {topic})"), result.stderr
        assert run_cli(tmp_path, "docs", topic).returncode == 0
    unexplained = run_cli(tmp_path, "simulate", "--games", "0")
    assert unexplained.returncode == 2 and "see:" not in unexplained.stderr, "only errors a guide explains point to one"


@pytest.mark.slow
def test_the_wheel_carries_every_module_guide_and_example(tmp_path: Path) -> None:
    """Built the way pip builds it (from the sdist), the wheel holds the code, the guides and the examples,
    and ``quiltmaker docs`` run from it reads the guides it carries."""
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(REPOSITORY)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("quiltmaker-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {path.relative_to(REPOSITORY).as_posix() for path in (REPOSITORY / "quiltmaker").rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    carried = {f"quiltmaker/docs/{path.relative_to(DOCS).as_posix()}" for path in [*DOCS.glob("*.md"), *DOCS.glob("examples/*.py"), *DOCS.glob("reference/*.md")]}
    site_only = {"quiltmaker/docs/index.md"} | {name for name in names if name.startswith("quiltmaker/docs/images/")}
    assert carried - site_only <= names and not site_only & names, (sorted(carried - names), sorted(site_only & names))

    zipfile.ZipFile(wheel).extractall(tmp_path / "installed")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "installed")}
    where = subprocess.run([sys.executable, "-m", "quiltmaker", "docs", "--where"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert Path(where.stdout.strip()) == tmp_path / "installed" / "quiltmaker" / "docs", where.stderr
    for topic in ("engine-protocol", "overview"):
        shown = subprocess.run([sys.executable, "-m", "quiltmaker", "docs", topic], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert shown.returncode == 0 and shown.stdout == guide(topic), shown.stderr
    listed = subprocess.run([sys.executable, "-m", "quiltmaker", "docs", "reference"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert listed.returncode == 0 and all(f"    {module}\n" in listed.stdout for module in reference_modules()), listed.stdout


def test_the_api_reference_is_there_without_the_site(tmp_path: Path) -> None:
    """`quiltmaker docs reference` lists what the reference documents; with a name, it shows that object's documentation."""
    listed = run_cli(tmp_path, "docs")
    assert "reference" in listed.stdout and "quiltmaker docs reference [NAME]" in listed.stdout
    batch = run_cli(tmp_path, "docs", "reference", "envs.batched.PatchworkBatch")
    assert batch.returncode == 0 and "class PatchworkBatch" in batch.stdout and "float32[N, 864]" in batch.stdout
    play = run_cli(tmp_path, "docs", "reference", "quiltmaker.Position.play")
    assert play.returncode == 0 and "checking every rule" in play.stdout
    missing = run_cli(tmp_path, "docs", "reference", "Nope")
    assert missing.returncode == 2 and missing.stdout == "" and "nothing called 'Nope' in quiltmaker" in missing.stderr
    misplaced = run_cli(tmp_path, "docs", "notation", "Position")
    assert misplaced.returncode == 2 and "a name goes with 'reference' only" in misplaced.stderr


def reference_modules() -> list[str]:
    """The modules the API reference documents: the ``::: module`` lines of docs/reference/."""
    return [line[4:].strip() for page in sorted((DOCS / "reference").glob("*.md")) for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("::: ")]


@pytest.mark.parametrize("module", reference_modules())
def test_every_public_object_of_the_reference_says_what_it_is(module: str) -> None:
    """Each public module member, class member and attribute the reference shows has words: its own docstring, or
    a line in its class's (or module's) Attributes section. The site lists only documented objects, so one
    without words would vanish from it (mkdocs.yml: show_if_no_docstring is false)."""
    griffe = pytest.importorskip("griffe")
    loaded = griffe.load(module, search_paths=[str(REPOSITORY)])
    silent: list[str] = []

    def listed(obj: object) -> set[str]:
        docstring = getattr(obj, "docstring", None)
        sections = docstring.parse("google") if docstring is not None else []
        return {attribute.name for section in sections if section.kind.value == "attributes" for attribute in section.value}

    def walk(obj: object) -> None:
        named = listed(obj)
        for name, member in obj.members.items():  # type: ignore[attr-defined]
            if name.startswith("_") or member.is_alias:
                continue
            if not member.docstring and name not in named:
                silent.append(member.path)
            if member.is_class:
                walk(member)

    walk(loaded)
    assert silent == [], f"objects of the reference without a word: {silent}"
