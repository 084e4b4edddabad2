"""``escapebench report RUN_DIR... --out DIR``: write a static HTML report of result folders."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from escapebench.exit_codes import EXIT_OK, EXIT_USAGE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``escapebench report``."""
    parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="result folders to include")
    parser.add_argument(
        "--out", required=True, metavar="DIR",
        help="folder to write the report into (index.html, figures/, tables.md)",
    )
    parser.add_argument("--title", default="EscapeBench report", help="title of the page")
    from escapebench.bench.costs import add_price_arguments

    add_price_arguments(parser)


def main(args: argparse.Namespace) -> int:
    """Write the report; a folder that is not a result folder is a clear error, exit 2."""
    from escapebench.report.runs import ReportInputError
    from escapebench.report.site import build_report

    out = Path(args.out)
    resolved_out = out.resolve()
    for d in args.run_dirs:
        if Path(d).resolve() == resolved_out:
            print(f"escapebench report: --out {out} is one of the result folders; "
                  "pick another folder", file=sys.stderr)
            return EXIT_USAGE
    try:
        from escapebench.bench.costs import prices_from_args

        result = build_report(args.run_dirs, out, title=args.title,
                              prices=prices_from_args(args))
    except ReportInputError as exc:
        print(f"escapebench report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"escapebench report: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    print(
        f"wrote {result.index_html} ({result.finished} finished of {result.episodes} episodes, "
        f"{len(result.figures)} figures, {len(result.tables)} tables)"
    )
    for fig in result.figures:
        print(f"  {out / fig.filename}")
    from escapebench.bench.verify import verification_status

    for run_dir in args.run_dirs:
        status = verification_status(Path(run_dir)) or "not verified (escapebench verify)"
        print(f"{run_dir}: {status}")
    return EXIT_OK
