"""The user docs do what they say: their examples run and their commands exist as written.

* Every ```python block of README.md and docs/guide.md runs, each on its own in a fresh
  namespace (the docs write every example to be copied alone: it makes its own imports and
  data), with a temporary folder as the working directory (an example may write files).  A
  traceback names the doc file and its line.  A block that imports an optional extra that is not
  installed (pygame, dask, distributed, pandas, pyarrow, geopandas) is skipped.
* The README's test command is exactly the one ``.ci/run`` runs; every ``broadphase ...``
  command of the README and the guide parses (sub-command and options exist), and the README's
  ``broadphase pairs`` example runs on a small file; every ``python FILE`` it names exists, and a
  script with options answers ``--help``; every extra it installs (``".[demo]"``) exists.

The slow commands (``broadphase bench`` at 1e5, the demo's window, the full benchmark scripts)
are parsed or looked up here, not run.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from broadphase import _cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "docs/guide.md")
OPTIONAL = {"pygame", "dask", "distributed", "pandas", "pyarrow", "polars", "geopandas",
            "shapely"}


def fenced(path: str, language: str) -> list[tuple[int, str]]:
    """``(first line, text)`` of each fenced block of ``language`` in the doc at ``path``."""
    lines = (ROOT / path).read_text().splitlines()
    blocks, start = [], None
    for k, line in enumerate(lines, start=1):
        if start is None and line.strip() == f"```{language}":
            start = k + 1
        elif start is not None and line.strip() == "```":
            blocks.append((start, "\n".join(lines[start - 1:k - 1]) + "\n"))
            start = None
    assert start is None, f"{path}: a ```{language} block opened at line {start - 1} never closes"
    return blocks


def python_blocks():
    return [pytest.param(path, line, text, id=f"{path}:{line}")
            for path in DOCS for line, text in fenced(path, "python")]


def missing_extras(text: str) -> list[str]:
    """Optional top-level modules the block imports that are not installed."""
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    wanted = {n.split(".")[0] for n in names} & OPTIONAL
    wanted |= {n.split(".")[1] for n in names if n.startswith("broadphase.")} & OPTIONAL
    return sorted(m for m in wanted if importlib.util.find_spec(m) is None)


def test_the_docs_have_examples():
    assert len(fenced("README.md", "python")) >= 2
    assert len(fenced("docs/guide.md", "python")) >= 10


@pytest.mark.parametrize(("path", "line", "text"), python_blocks())
def test_example_runs(path, line, text, tmp_path, monkeypatch):
    missing = missing_extras(text)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    monkeypatch.chdir(tmp_path)
    # padded so that a traceback's line numbers are the doc file's
    code = compile("\n" * (line - 1) + text, str(ROOT / path), "exec")
    exec(code, {"__name__": "__doc_example__"})


# ---------------------------------------------------------------------------
# shell commands


def readme_commands() -> list[str]:
    """Every command the README names: lines of its ```bash blocks and inline code spans."""
    text = (ROOT / "README.md").read_text()
    commands = []
    for _, block in fenced("README.md", "bash"):
        for line in block.splitlines():
            commands += [c.strip() for c in line.split("#")[0].split("&&") if c.strip()]
    for span in re.findall(r"`([^`\n]+)`", text):
        if span.startswith(("broadphase ", "python ")):
            commands.append(span)
    return commands


def guide_commands() -> list[str]:
    return [line.split("#")[0].strip() for _, block in fenced("docs/guide.md", "bash")
            for line in block.splitlines() if line.startswith("broadphase ")]


def test_readme_test_command_is_the_ci_command():
    ci = (ROOT / ".ci/run").read_text().strip().splitlines()[-1]
    blocks = [b.strip() for _, b in fenced("README.md", "bash")]
    assert ci in blocks, "the README's test command is not .ci/run's"


def test_readme_names_commands():
    commands = readme_commands()
    assert any(c.startswith("broadphase bench") for c in commands)
    assert any(c.startswith("broadphase pairs") for c in commands)
    assert any(c.startswith("python benchmarks/runtime.py") for c in commands)


@pytest.mark.parametrize("command", sorted({c for c in readme_commands() + guide_commands()
                                            if c.startswith("broadphase ")}))
def test_broadphase_command_parses(command, capsys):
    argv = shlex.split(command)[1:]
    try:
        args = _cli._parser().parse_args(argv)
    except SystemExit as e:  # --help exits 0, a usage error 2
        assert e.code == 0, capsys.readouterr().err
        return
    assert args.command is not None


def test_readme_pairs_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "boxes.csv").write_text("minx,miny,maxx,maxy\n0,0,2,2\n1,1,3,3\n2,0,4,1\n")
    [command] = [c for c in readme_commands() if c.startswith("broadphase pairs")]
    assert _cli.main(shlex.split(command)[1:]) == 0
    assert (tmp_path / "pairs.csv").read_text().split() == ["i,j", "0,1"]


@pytest.mark.parametrize("command", sorted({c for c in readme_commands()
                                            if c.startswith("python ")}))
def test_python_command_names_a_script(command):
    script = ROOT / shlex.split(command)[1]
    assert script.is_file(), f"{command}: no {script}"
    if "argparse" in script.read_text():
        done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_readme_extras_exist():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    named = re.findall(r'pip install (?:-e )?"[^"]*\[([a-z,]+)\]"',
                       (ROOT / "README.md").read_text())
    assert named
    for group in named:
        assert set(group.split(",")) <= set(extras), group
