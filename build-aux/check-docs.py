#!/usr/bin/env python3
"""make check-docs: the transcripts in README.md and man/retry.1 come from
real runs.  Each one is run again and what it prints is compared with
what the document shows, with times, dates and random draws masked.

README.md: every ```console block.  The lines "$ COMMAND" of a block run
in turn in one /bin/sh, as a reader would type them (an export holds for
the commands after it, and $? is the status of the one before); the
lines up to the next "$ " are what each prints (stdout and stderr, as a
terminal shows them).  An HTML comment on the line before
the fence can say more:
    <!-- check-docs: server A; B; ... -->  tests/helpers/http-server
        answers the requests in turn (STATUS|DELAY_MS|RETRY_AFTER), and
        localhost:8080 in the commands is that server
    <!-- check-docs: skip REASON -->  not run (REASON says why)
man/retry.1: a .Bd -literal block right after a comment line
    .\\" check-docs: COMMAND
whose whole content is what COMMAND prints (the roff escapes \\- and
\\e are read as - and \\).

Commands run in an empty temporary directory, with the retry of this tree
first on PATH.  Exits 1 and shows the differences when a transcript is
not what its command prints, or when README.md is longer than
README_MAX_LINES: it is for users, the man page is the manual.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 300
MASKS = [
    # ts fields and local times in a log file
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)"),
     "TIMESTAMP"),
    # HTTP-dates of Retry-After
    (re.compile(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT"), "HTTPDATE"),
    # seconds: elapsed times, sleeps drawn at random, JSON numbers
    (re.compile(r"\d+\.\d+s\b"), "Ts"),
    (re.compile(r'("(time|duration|elapsed)":)\d+\.\d+'), r"\1T"),
]


def mask(text):
    for rx, repl in MASKS:
        text = rx.sub(repl, text)
    return text


def readme_blocks(path):
    """(where, directive, [(command, expected)]) for each console block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i] != "```console":
            i += 1
            continue
        m = re.match(r"<!-- check-docs: (.*) -->$", lines[i - 1]) \
            if i > 0 else None
        directive = m.group(1) if m else ""
        start = i + 1
        i += 1
        while lines[i] != "```":
            i += 1
        out.append(("%s:%d" % (os.path.basename(path), start), directive,
                    transcript(lines[start:i])))
        i += 1
    return out


def transcript(lines):
    steps = []
    for line in lines:
        if line.startswith("$ "):
            steps.append([line[2:], []])
        elif steps:
            steps[-1][1].append(line)
    return [(c, "\n".join(e)) for c, e in steps]


def man_blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        m = re.match(r'\.\\" check-docs: (.*)$', line)
        if not m:
            continue
        assert lines[i + 1].startswith(".Bd -literal"), (path, i + 1)
        j = i + 2
        while lines[j] != ".Ed":
            j += 1
        body = "\n".join(lines[i + 2:j]).replace("\\-", "-") \
            .replace("\\e", "\\").replace("\\&", "")
        out.append(("%s:%d" % (os.path.basename(path), i + 1), "",
                    [(m.group(1), body)]))
    return out


def start_server(work, spec):
    sdir = os.path.join(work, ".server")
    os.mkdir(sdir)
    with open(os.path.join(sdir, "script"), "w") as f:
        for answer in spec.split(";"):
            f.write(answer.strip() + "\n")
    proc = subprocess.Popen([os.path.join(ROOT, "tests/helpers/http-server"),
                             sdir])
    port = os.path.join(sdir, "port")
    for _ in range(500):
        if os.path.exists(port) and open(port).read().endswith("\n"):
            return proc, open(port).read().strip()
        time.sleep(0.01)
    proc.kill()
    raise SystemExit("check-docs: the HTTP server did not start")


# Printed after each command, on a line of its own, to split the output.
MARK = "@@check-docs: the command ended@@"


def block_script(cmds):
    """The block as one script: each command, then MARK, with $? kept."""
    keep = '__s=$?; printf "\\n%s\\n" "' + MARK + '"; (exit $__s)\n'
    return "".join(cmd + "\n" + keep for cmd in cmds)


def run_block(where, directive, steps, bindir):
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        server, port = None, None
        if directive.startswith("server "):
            server, port = start_server(work, directive[len("server "):])
        try:
            cmds = [cmd if port is None else
                    cmd.replace("localhost:8080", "127.0.0.1:" + port)
                    for cmd, _ in steps]
            env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
            for k in list(env):
                if k.startswith("RETRY_") or k == "GITHUB_OUTPUT":
                    del env[k]
            env["TZ"] = "UTC"
            p = subprocess.run(["/bin/sh", "-c", block_script(cmds)],
                               cwd=work, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               timeout=120 * len(steps))
            out = p.stdout.decode("utf-8", "replace").split(MARK + "\n")
            for i, (cmd, want) in enumerate(steps):
                got = out[i].rstrip("\n") if i < len(out) else \
                    "(the shell ended before this command)"
                if mask(got) != mask(want):
                    failures += 1
                    print("check-docs: %s: $ %s" % (where, cmd))
                    for d in difflib.unified_diff(
                            mask(want).split("\n"), mask(got).split("\n"),
                            "shown", "printed", lineterm="", n=2):
                        print(d)
        finally:
            if server is not None:
                server.kill()
                server.wait()
    return failures


def main():
    bindir = tempfile.mkdtemp()
    os.symlink(os.path.join(ROOT, "retry"), os.path.join(bindir, "retry"))
    blocks = readme_blocks(os.path.join(ROOT, "README.md")) + \
        man_blocks(os.path.join(ROOT, "man/retry.1"))
    failures = checked = skipped = 0
    try:
        for where, directive, steps in blocks:
            if directive.startswith("skip"):
                skipped += 1
                print("check-docs: %s: not run: %s" % (where, directive[5:]))
                continue
            checked += 1
            failures += run_block(where, directive, steps, bindir)
    finally:
        shutil.rmtree(bindir)
    print("check-docs: %d transcripts run, %d not run, %d differ" %
          (checked, skipped, failures))
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        n = len(f.read().splitlines())
    if n > README_MAX_LINES:
        print("check-docs: README.md has %d lines, more than %d: the rest "
              "goes to the man page, INSTALL.md or HACKING.md" %
              (n, README_MAX_LINES))
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
