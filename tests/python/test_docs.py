"""Every fenced code block in README.md and docs/*.md is checked, so the docs
cannot drift from the code (the convention is in docs/README.md).

The line before a block's opening fence (blank lines allowed between) is an
HTML comment saying how:
  <!-- check: excerpt PATH -->  the block's lines occur, contiguously and in
                                order, in the repository file PATH (which
                                ctest builds or runs)
  <!-- check: run -->           sh/bash blocks run with bash -euo pipefail,
                                python blocks with /usr/bin/python3, in a
                                fresh temporary directory; exit 0 within 60 s
  <!-- check: spec -->          a protobuf-text pipeline spec that
                                `sluice describe` builds
  <!-- check: output PATH -->   the block equals the golden file PATH

Also checked: docs/cli.md names every command and flag `sluice --help` lists,
and each golden file still matches what its command prints.

Run by ctest as python_test_docs, with SLUICE_CLI (the built `sluice`) and
SLUICE_BUILD_DIR set.
"""

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = 60
PYTHON = "/usr/bin/python3"

# Golden files an `output` block may name, each with the command (run from
# the repository root, `sluice` first on PATH) whose output it holds.
GOLDEN = {
    "tests/python/docs_golden/run_range_map_filter_batch.txt":
        ["sluice", "run", "examples/specs/range_map_filter_batch.pbtxt"],
    "tests/python/docs_golden/describe_zip_concatenate.txt":
        ["sluice", "describe", "examples/specs/zip_concatenate.pbtxt"],
}

MARKER = re.compile(r"^\s*<!--\s*check:\s*(\w+)(?:\s+(\S+))?\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


@dataclass
class Block:
    file: str        # relative to the repository root
    line: int        # 1-based line of the opening fence
    language: str
    lines: list      # the block's content, the fence's indentation removed
    kind: str        # the marker's kind, or None when there is no marker
    path: str        # the marker's PATH, or None

    @property
    def id(self):
        return f"{self.file}:{self.line}"


def doc_files():
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def parse_blocks(path):
    """The fenced code blocks of a markdown file, with their markers."""
    text = path.read_text(encoding="utf-8").splitlines()
    rel = str(path.relative_to(REPO))
    blocks = []
    i = 0
    while i < len(text):
        opening = FENCE.match(text[i])
        if not opening:
            i += 1
            continue
        indent, fence, language = opening.groups()
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        j = i + 1
        while j < len(text) and not close.match(text[j]):
            j += 1
        content = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in text[i + 1:j]]
        k = i - 1
        while k >= 0 and not text[k].strip():
            k -= 1
        marker = MARKER.match(text[k]) if k >= 0 else None
        blocks.append(Block(rel, i + 1, language, content,
                            marker.group(1) if marker else None, marker.group(2) if marker else None))
        i = j + 1
    return blocks


ALL_BLOCKS = [block for path in doc_files() for block in parse_blocks(path)]


def sluice_cli():
    cli = os.environ.get("SLUICE_CLI")
    if not cli:
        pytest.skip("SLUICE_CLI is not set (ctest sets it)")
    return cli


def block_env():
    """The environment run blocks get: the built `sluice` first on PATH, the
    build's Python package importable, SLUICE_REPO the repository root."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sluice_cli()).parent) + os.pathsep + env.get("PATH", "")
    build = os.environ.get("SLUICE_BUILD_DIR")
    if build:
        env["PYTHONPATH"] = str(Path(build) / "python")
    env["SLUICE_REPO"] = str(REPO)
    return env


def trimmed(lines):
    """Lines without trailing spaces and without leading/trailing blank lines."""
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def find_excerpt(excerpt, source):
    """None when `excerpt` occurs in `source` contiguously (every line shifted
    by one common indentation), else the first excerpt line that did not match
    at the best candidate position."""
    best = 0
    for start in range(len(source) - len(excerpt) + 1):
        first = source[start]
        if not first.endswith(excerpt[0]) or first[: len(first) - len(excerpt[0])].strip():
            continue
        indent = first[: len(first) - len(excerpt[0])]
        matched = 0
        for want, have in zip(excerpt, source[start:]):
            if have != (indent + want if want else ""):
                break
            matched += 1
        if matched == len(excerpt):
            return None
        best = max(best, matched)
    return excerpt[best]


def check_excerpt(block):
    assert block.path, f"{block.id}: 'excerpt' needs a PATH"
    source_path = REPO / block.path
    assert source_path.is_file(), f"{block.id}: excerpt of {block.path}, which does not exist"
    excerpt = trimmed(block.lines)
    assert excerpt, f"{block.id}: empty block"
    mismatch = find_excerpt(excerpt, trimmed(source_path.read_text(encoding="utf-8").splitlines()))
    assert mismatch is None, f"{block.id}: not in {block.path}; first line that does not match:\n{mismatch}"


def run_command(command, cwd, env, what):
    try:
        result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{what}: still running after {RUN_TIMEOUT_S} s; output so far:\n{error.output or ''}")
    return result


def check_run(block, tmp_path):
    env = block_env()
    script = "\n".join(block.lines) + "\n"
    if block.language in ("sh", "bash", "shell"):
        command = ["bash", "-euo", "pipefail", "-c", script]
    elif block.language == "python":
        command = [PYTHON, "-c", script]
    else:
        pytest.fail(f"{block.id}: 'run' takes sh, bash or python blocks, not '{block.language}'")
    result = run_command(command, tmp_path, env, block.id)
    assert result.returncode == 0, f"{block.id}: exit status {result.returncode}; output:\n{result.stdout}"


def check_spec(block, tmp_path):
    spec = tmp_path / "spec.pbtxt"
    spec.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
    result = run_command([sluice_cli(), "describe", str(spec)], tmp_path, block_env(), block.id)
    assert result.returncode == 0, f"{block.id}: sluice describe failed ({result.returncode}):\n{result.stdout}"


def check_output(block):
    assert block.path, f"{block.id}: 'output' needs a PATH"
    assert block.path in GOLDEN, f"{block.id}: {block.path} is not a golden file this test keeps (GOLDEN)"
    golden = trimmed((REPO / block.path).read_text(encoding="utf-8").splitlines())
    shown = trimmed(block.lines)
    for number, (want, have) in enumerate(zip(golden, shown), 1):
        assert want == have, f"{block.id}: line {number} differs from {block.path}:\n  doc:    {have}\n  golden: {want}"
    assert len(golden) == len(shown), f"{block.id}: {len(shown)} lines, {block.path} has {len(golden)}"


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[block.id for block in ALL_BLOCKS])
def test_code_block(block, tmp_path):
    if block.kind is None:
        pytest.fail(f"{block.id}: code block without a '<!-- check: ... -->' marker on the line before it")
    if block.kind == "excerpt":
        check_excerpt(block)
    elif block.kind == "run":
        check_run(block, tmp_path)
    elif block.kind == "spec":
        check_spec(block, tmp_path)
    elif block.kind == "output":
        check_output(block)
    else:
        pytest.fail(f"{block.id}: unknown check '{block.kind}' (excerpt, run, spec or output)")


@pytest.mark.parametrize("golden", sorted(GOLDEN))
def test_golden_file_matches_its_command(golden):
    result = run_command(GOLDEN[golden], REPO, block_env(), golden)
    assert result.returncode == 0, f"{' '.join(GOLDEN[golden])} failed:\n{result.stdout}"
    want = (REPO / golden).read_text(encoding="utf-8")
    assert result.stdout == want, f"{golden} is stale; `{' '.join(GOLDEN[golden])}` prints:\n{result.stdout}"


def test_cli_doc_names_every_command_and_flag():
    result = run_command([sluice_cli(), "--help"], REPO, block_env(), "sluice --help")
    assert result.returncode == 0, result.stdout
    commands = re.findall(r"^usage: sluice (\w+)", result.stdout, re.MULTILINE)
    flags = set(re.findall(r"^    (--[\w-]+)(?: |$)", result.stdout, re.MULTILINE))
    assert commands and flags, f"cannot read commands and flags from sluice --help:\n{result.stdout}"
    doc = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [f"command {c}" for c in commands if f"## `sluice {c}" not in doc]
    missing += [f"flag {f}" for f in sorted(flags) if f"`{f}" not in doc]
    assert not missing, "docs/cli.md does not document: " + ", ".join(missing)


def test_every_block_is_found():
    # A fence the parser missed would leave a block unchecked: each file has
    # an even number of fence lines, two per block.
    for path in doc_files():
        fences = [line for line in path.read_text(encoding="utf-8").splitlines() if FENCE.match(line)]
        blocks = [b for b in ALL_BLOCKS if b.file == str(path.relative_to(REPO))]
        assert len(fences) == 2 * len(blocks), f"{path}: {len(fences)} fence lines, {len(blocks)} blocks"

