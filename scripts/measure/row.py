"""The validation table's row format (tests/data/validation.json), shared by the measurement scripts.

A row is one figure measured outside vramfit, with what reproduces it: the request vramfit is asked, the JSON
pointer into its answer that holds the figure compared, the figure in the unit it was printed in, and the relative
tolerance the unit test allows. The scripts print a row; you paste it into the "rows" list of
tests/data/validation.json and open a pull request with the log the figure came from (scripts/measure/README.md).
"""
import argparse
import json
import re
import sys

# The units a figure may be written in, as vramfit's answer gives bytes, parameters or tokens.
UNITS = {"bytes": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "KB": 1e3, "MB": 1e6, "GB": 1e9,
         "params": 1, "tokens": 1}


def source_args(parser: argparse.ArgumentParser) -> None:
    """The flags every script takes: the row's id and where the figure can be checked by someone else."""
    parser.add_argument("--id", required=True, help="the row's id, e.g. vllm-llama31-8b-h100-16k")
    parser.add_argument("--gpu", required=True, help="vramfit's catalog id of the GPU (vramfit --list-gpus)")
    parser.add_argument("--source-url", required=True,
                        help="where the log is published: the issue, pull request or discussion you post it in")
    parser.add_argument("--source-repo", default="", help="owner/name the source lives in (default: from the URL)")
    parser.add_argument("--tolerance", type=float, default=0.05, help="relative tolerance the test allows (0.05)")


def repo_of(url: str) -> str:
    parts = url.split("github.com/", 1)
    return "/".join(parts[1].split("/")[:2]) if len(parts) == 2 else ""


def make_row(args, *, kind, engine, what, ref, quote, request, answer_path, figure, unit, suffix=""):
    if unit not in UNITS:
        raise SystemExit(f"unit {unit!r} is not one of {', '.join(UNITS)}")
    return {
        "id": args.id + suffix,
        "kind": kind,
        "engine": engine,
        "what": what,
        "source": {"repo": args.source_repo or repo_of(args.source_url), "ref": ref, "url": args.source_url,
                   "quote": quote},
        "request": request,
        "answer_path": answer_path,
        "figure": figure,
        "unit": unit,
        "tolerance": args.tolerance,
    }


def rows_from_log(args, log, patterns, *, engine, ref, request):
    """A row for each (regex, answer pointer, unit, what, id suffix) whose regex matches the log: its first group is
    the figure. The last match counts (a log printed per rank, or a server restarted, ends with the figure in force),
    and the quote is that match as printed."""
    rows = []
    for pattern, pointer, unit, what, suffix in patterns:
        matches = list(re.finditer(pattern, log))
        if not matches:
            continue
        last = matches[-1]
        figure = float(last.group(1).replace(",", ""))
        rows.append(make_row(args, kind="engine_log", engine=engine, what=f"{args.model}: {what}", ref=ref,
                             quote=last.group(0).strip(), request=request, answer_path=pointer,
                             figure=int(figure) if unit == "tokens" else figure, unit=unit, suffix=suffix))
    return rows


def print_rows(rows) -> None:
    """One JSON object per row, ready to paste into tests/data/validation.json's "rows"."""
    if not rows:
        sys.exit("no figure found: is the log the engine's full startup output?")
    print(",\n".join(json.dumps(r, ensure_ascii=False) for r in rows))


def read_log(path: str) -> str:
    with (sys.stdin if path == "-" else open(path, encoding="utf-8", errors="replace")) as f:
        return f.read()
