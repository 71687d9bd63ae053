#!/usr/bin/env python3
"""Every documented benchmark command parses against the current scripts (issue 37, item 16).

The commands: each `python3 bench/<script>.py ...` written in README.md, docs/*.md (not
docs/results/, the evidence of past runs), the bench scripts' own docstrings and tools/device-run.sh
(line continuations joined; shell variables, placeholders such as <dir> and "..." stand for
values; [optional] brackets dropped; text after a # or a backtick left out). Each is parsed by its
script's own argparse parser, run as the script runs (runpy, __main__) with parse_args stopped
right after parsing: an option the script no longer has, a missing required one or a bad value
fails here, with the file and line that documents the command. And tools/device-run.sh: every mode
its argument loop handles is documented in its usage comment ("#   <mode>: ..."), and every mode
its usage line lists is handled.

The commands are written to be run from the repository root with the tuner built as README.md
builds it (build/tuner/adaexplore-tuner), and some parsers check that a tuner named in them exists:
they are parsed in a scratch folder standing for that root (bench/ and tools/ linked, the tuner
given, else the repository's build/, linked at build/tuner/adaexplore-tuner), so that the outcome
depends neither on the folder the test runs in nor on the name of the build folder.

  python3 tests/cli/bench_commands_test.py <repository> [<adaexplore-tuner>]
No GPU: nothing is run but the argument parsers (tests/CMakeLists.txt: cli.bench_commands).
"""
import argparse
import contextlib
import io
import os
import re
import runpy
import shlex
import sys
import tempfile
from pathlib import Path

REPO = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
TUNER = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else REPO / "build" / "tuner" / "adaexplore-tuner"
COMMAND = re.compile(r"python3 (bench/[a-z_]+\.py)\b")


class Parsed(Exception):
    pass


def sources():
    files = [REPO / "README.md", REPO / "tools" / "device-run.sh"]
    files += sorted(p for p in (REPO / "docs").glob("*.md"))
    files += sorted((REPO / "bench").glob("*.py")) + sorted((REPO / "bench").glob("*/README.md"))
    return files


END = re.compile(r"`|\s#\s|\s#$|\)\s*$|\),|, |;|\|\||&&|\s\|\s")


def command_end(text):
    """Where the command in `text` ends: the first `END` outside '...' and "..." (a JSON option
    value such as '{"a": 1, "b": 2}' holds ", "; a quote opens where a word starts), else the end of
    `text`."""
    masked, quote = [], None
    for ch in text:
        if quote:
            masked.append(" " if ch != quote else ch)
            quote = None if ch == quote else quote
        else:
            # a quote opens only where a shell word starts (not the apostrophe of "the tuner's")
            opens = ch in "'\"" and (not masked or masked[-1] in " =")
            masked.append(ch)
            quote = ch if opens else None
    m = END.search("".join(masked))
    return m.start() if m else len(text)


def commands(path):
    """(line number, script, argv) of each documented command in `path`."""
    lines = path.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = COMMAND.search(line)
        if not m:
            continue
        before = line[:m.start()]
        if re.search(r"""(f?["'])[^"']*$""", before) and path.suffix == ".py":
            continue  # a string the script builds at run time ("python3 bench/x.py " + shlex.join(argv))
        text = line[m.end():]
        j = i
        while text.rstrip().endswith("\\") and j + 1 < len(lines):  # line continuations
            j += 1
            text = text.rstrip()[:-1].rstrip("\\") + " " + lines[j].strip().lstrip("#").strip()
        if path.suffix == ".md" and before.count("`") % 2 == 1:  # inside `...` that goes on over lines
            while "`" not in text and j + 1 < len(lines):
                j += 1
                text += " " + lines[j].strip()
        text = re.sub(r"<[^<>]*>", "X", text)  # placeholders: <dir>, <tuner of commit 635dfc9>
        text = text[:command_end(text)]  # end of the command
        text = re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*:-([^}]*)\}", r"\1", text)  # ${VAR:-default}: the default
        text = re.sub(r"\$\([^)]*\)|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*", "X", text)  # other shell values
        text = text.replace("[", " ").replace("]", " ")
        try:
            argv = shlex.split(text)
        except ValueError as e:
            out.append((i + 1, m.group(1), None, f"cannot split {text!r}: {e}"))
            continue
        argv = ["X" if a == "..." or re.fullmatch(r"<[^>]*>", a) else a for a in argv]
        argv = [a for a in argv if a != "\\"]
        out.append((i + 1, m.group(1), argv, None))
    return out


def parse(script, argv):
    """'' when `script`'s parser accepts `argv`, else its message."""
    original = argparse.ArgumentParser.parse_args
    original_known = argparse.ArgumentParser.parse_known_args

    def parse_args(self, args=None, namespace=None):
        original(self, args, namespace)
        raise Parsed()

    def parse_known_args(self, args=None, namespace=None):
        result = original_known(self, args, namespace)
        if args is None or args is sys.argv[1:]:
            raise Parsed()
        return result

    argparse.ArgumentParser.parse_args = parse_args
    argparse.ArgumentParser.parse_known_args = parse_known_args
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(REPO / script)] + argv
    sys.path.insert(0, str((REPO / script).parent))
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(str(REPO / script), run_name="__main__")
        return "the script ran to its end without parsing its arguments"
    except Parsed:
        return ""
    except SystemExit as e:
        return f"exit {e.code}: {err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ''}"
    except Exception as e:  # noqa: BLE001 (any failure of the script's start is the finding)
        return f"{type(e).__name__}: {e}"
    finally:
        argparse.ArgumentParser.parse_args = original
        argparse.ArgumentParser.parse_known_args = original_known
        sys.argv, sys.path[:] = saved_argv, saved_path


def device_run_modes():
    """(modes documented in tools/device-run.sh's usage comment, modes its argument loop handles)."""
    text = (REPO / "tools" / "device-run.sh").read_text()
    documented = set(re.findall(r"^#   ([a-z0-9]+): ", text, re.M)) | {"test"}
    usage = re.search(r"^#   usage: .*?tools/device-run.sh (.*)$", text, re.M).group(1)
    listed = {w for w in re.findall(r"\[([a-z0-9]+)\]", usage)}
    loop = text[text.index('for a in "$@"; do'):text.index("done", text.index('for a in "$@"; do'))]
    handled = set(re.findall(r"^\s+([a-z0-9]+)\) run_", loop, re.M))
    return documented, handled, listed


def stand_in_root(folder):
    """`folder` made to stand for the repository root the documented commands run from."""
    for name in ("bench", "tools"):
        (folder / name).symlink_to(REPO / name, target_is_directory=True)
    (folder / "build" / "tuner").mkdir(parents=True)
    (folder / "build" / "tuner" / "adaexplore-tuner").symlink_to(TUNER)


def main():
    if not TUNER.is_file():
        print(f"no tuner at {TUNER}: give the built adaexplore-tuner as the second argument")
        return 1
    with tempfile.TemporaryDirectory(prefix="bench-commands-") as scratch:
        stand_in_root(Path(scratch))
        here = os.getcwd()
        os.chdir(scratch)
        try:
            return check_all()
        finally:
            os.chdir(here)


def check_all():
    failures, checked = [], 0
    scripts = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "bench").glob("*.py"))
    for script in scripts:  # each script's --help: it starts and builds its parser
        problem = parse(script, ["--help"])
        if problem and not problem.startswith("exit 0"):
            failures.append(f"{script} --help: {problem}")
    for path in sources():
        for line, script, argv, problem in commands(path):
            where = f"{path.relative_to(REPO)}:{line}: python3 {script} {shlex.join(argv or [])}"
            if problem is None and not (REPO / script).exists():
                problem = f"{script} does not exist"
            if problem is None:
                problem = parse(script, argv)
            checked += 1
            if problem:
                failures.append(f"{where}\n    {problem}")
    documented, handled, listed = device_run_modes()
    for mode in sorted(listed - handled):
        failures.append(f"tools/device-run.sh's usage line names the mode '{mode}' but its argument loop does not "
                        f"handle it")
    for mode in sorted(handled - documented):
        failures.append(f"tools/device-run.sh handles the mode '{mode}' but its usage comment does not document it")
    print(f"{checked} documented commands of {len(scripts)} bench scripts parsed; device-run.sh modes: "
          f"{', '.join(sorted(handled))}")
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
