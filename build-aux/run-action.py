#!/usr/bin/env python3
"""Runs a composite action's steps as a GitHub runner would, for CI.

usage: run-action.py ACTION_DIR NAME=VALUE...

Reads ACTION_DIR/action.yml, takes each NAME=VALUE as an input (the
others get their defaults), and runs every `run:` step with its shell,
in order, as the runner does: the `${{ ... }}` expressions of `run` and
`env` filled in (inputs, the outputs of earlier steps, github.action_path,
runner.temp), GITHUB_ACTION_PATH set, a GITHUB_OUTPUT file of its own
for each step, and the caller's GITHUB_STEP_SUMMARY and RUNNER_TEMP
passed on.  The first step that fails ends the run.  The action's
outputs are then appended, NAME=VALUE, to the caller's GITHUB_OUTPUT,
and the script exits with the failed step's status, or 0.

It refuses an action whose `run:` scripts name an input: inputs must
reach the scripts through `env`, so that no input becomes code.
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SHELLS = {
    "bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"],
    "sh": ["sh", "-e"],
}


def fill(text, ctx):
    """text with every ${{ expression }} replaced by its value."""
    def value(m):
        expr = m.group(1)
        if expr not in ctx:
            sys.exit(f"run-action: unsupported expression ${{{{ {expr} }}}}")
        return ctx[expr]
    return EXPR.sub(value, str(text))


def read_outputs(path):
    """The NAME=VALUE and NAME<<DELIMITER lines of a GITHUB_OUTPUT file."""
    out, lines = {}, open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line
                             or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            if delim not in lines[i + 1:]:
                # The runner fails the step: "Matching delimiter not found".
                sys.exit(f"run-action: {path}: {name}<<{delim} has no "
                         f"closing line {delim!r}")
            j = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1:j])
            i = j
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
        i += 1
    return out


def run_step(step, n, ctx, env, tmp):
    """Runs one step; returns its status, and records its outputs."""
    script = step["run"]
    if re.search(r"\$\{\{[^}]*\binputs\.", script):
        sys.exit(f"run-action: step {n}'s script names an input")
    shell = step.get("shell")
    if shell not in SHELLS:
        sys.exit(f"run-action: step {n}: shell {shell!r} is not known here")
    path = os.path.join(tmp, f"step{n}.sh")
    with open(path, "w", encoding="utf-8") as f:
        f.write(fill(script, ctx))
    outfile = os.path.join(tmp, f"output{n}")
    open(outfile, "w", encoding="utf-8").close()
    step_env = dict(env, GITHUB_OUTPUT=outfile)
    for k, v in (step.get("env") or {}).items():
        step_env[k] = fill(v, ctx)
    status = subprocess.call(SHELLS[shell] + [path], env=step_env)
    if "id" in step:
        for k, v in read_outputs(outfile).items():
            ctx[f"steps.{step['id']}.outputs.{k}"] = v
    return status


def main():
    action_dir = os.path.abspath(sys.argv[1])
    with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as f:
        action = yaml.safe_load(f)
    if action["runs"]["using"] != "composite":
        sys.exit("run-action: not a composite action")
    given = dict(a.split("=", 1) for a in sys.argv[2:])
    ctx = {"github.action_path": action_dir,
           "runner.temp": os.environ["RUNNER_TEMP"]}
    for name, spec in (action.get("inputs") or {}).items():
        if spec.get("required") and name not in given:
            sys.exit(f"run-action: input {name} is required")
        ctx[f"inputs.{name}"] = given.get(name, str(spec.get("default", "")))
    env = dict(os.environ, GITHUB_ACTION_PATH=action_dir)
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, step in enumerate(action["runs"]["steps"], 1):
            if "uses" in step:
                sys.exit(f"run-action: step {n} uses an action")
            status = run_step(step, n, ctx, env, tmp)
            if status != 0:
                break
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as f:
        for name, spec in (action.get("outputs") or {}).items():
            ctx_value = EXPR.sub(lambda m: ctx.get(m.group(1), ""),
                                 str(spec["value"]))
            f.write(f"{name}={ctx_value}\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
