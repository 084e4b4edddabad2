"""The folder a report is written into: only a new folder or one a report wrote before.

``escapebench report --out DIR`` writes into a folder a person names, which may hold their own
files. So the report:

* writes only into a folder that does not exist, is empty, or holds its marker file
  (:data:`MARKER`, the list of files its last build wrote); any other folder is refused;
* takes a lock (:data:`LOCK`) for the whole build: a second report into the same folder is
  refused instead of leaving a mix of two builds;
* builds into a temporary folder inside it (:data:`WORK`) and moves the files into place only
  when all are written, ``index.html`` last, then removes the files its previous build wrote
  that this one did not. A kill during the build (nearly all of its time) leaves the old report
  as it was; every file the old index points to stays until the new index is in place.
* never deletes or overwrites a file it did not write: a file of the person's in the way of
  one of the report's is refused with its name.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from escapebench import __version__
from escapebench.bench.folders import LockBusy, exclusive_lock
from escapebench.report.runs import ReportInputError

__all__ = ["LOCK", "MARKER", "WORK", "ReportFolder", "report_folder"]

MARKER = ".escapebench-report.json"
LOCK = ".escapebench-report.lock"
WORK = ".escapebench-report-work"  # the build in progress (new/) and kept pictures (cache/)
OWN = frozenset({MARKER, LOCK, WORK})


def _safe_relative(rel: object) -> str | None:
    """``rel`` if it is a plain relative path inside the folder, else None (a marker edited to
    name ``../x`` must not make the report delete a file outside its folder)."""
    if not isinstance(rel, str) or not rel or "\\" in rel or "\x00" in rel:
        return None
    p = PurePosixPath(rel)
    if p.is_absolute() or any(part in ("", ".", "..") for part in rel.split("/")):
        return None
    return str(p)


def _read_marker(out: Path) -> set[str]:
    path = out / MARKER
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = data["files"]
        if not isinstance(files, list):
            raise TypeError
    except (OSError, ValueError, KeyError, TypeError):
        raise ReportInputError(
            f"--out {out}: its marker {MARKER} cannot be read, so which files an earlier "
            "report wrote is unknown; choose a new or empty folder"
        ) from None
    return {r for r in (_safe_relative(f) for f in files) if r is not None}


def _write_marker(out: Path, files: set[str]) -> None:
    tmp = out / f"{MARKER}.tmp"
    tmp.write_text(json.dumps({"written_by": "escapebench report", "version": __version__,
                               "files": sorted(files)}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out / MARKER)


def _refuse_foreign(out: Path) -> None:
    """Refuse ``out`` unless it is missing, empty or a report folder (has the marker)."""
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir():
        raise ReportInputError(f"--out {out} is a file; choose a new or empty folder")
    names = sorted(p.name for p in out.iterdir())
    if MARKER in names:
        _read_marker(out)  # a damaged marker is refused here
        return
    others = [n for n in names if n not in OWN]
    if others:
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5
                                         else "")
        raise ReportInputError(
            f"--out {out} is not empty and was not written by escapebench report (it holds "
            f"{shown}); choose a new or empty folder"
        )


class ReportFolder:
    """A report folder under its lock: :attr:`new` is where a build writes, :meth:`commit`
    moves it into place."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.new = out / WORK / "new"
        self.cache = out / WORK / "cache"
        self.previous: set[str] = set()

    def prepare(self) -> None:
        self.previous = _read_marker(self.out) if (self.out / MARKER).exists() else set()
        if not (self.out / MARKER).exists():
            _write_marker(self.out, set())  # claim the folder before writing anything else
        shutil.rmtree(self.new, ignore_errors=True)  # a build a kill interrupted
        self.new.mkdir(parents=True)

    def _conflicts(self, files: list[str]) -> list[str]:
        """Files of this build whose place is taken by something the report did not write."""
        out: list[str] = []
        for rel in files:
            parts = rel.split("/")
            for i in range(1, len(parts)):
                parent = self.out.joinpath(*parts[:i])
                if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
                    out.append("/".join(parts[:i]))
                    break
            else:
                target = self.out / rel
                if (target.exists() or target.is_symlink()) and (
                        rel not in self.previous or target.is_dir()):
                    out.append(rel)
        return sorted(set(out))

    def commit(self) -> None:
        """Move the new build into place, ``index.html`` last; then remove what the previous
        build wrote and this one did not."""
        files = sorted(p.relative_to(self.new).as_posix() for p in self.new.rglob("*")
                       if p.is_file())
        files.sort(key=lambda rel: rel == "index.html")
        conflicts = self._conflicts(files)
        if conflicts:
            shown = ", ".join(conflicts[:5]) + (
                f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else "")
            raise ReportInputError(
                f"--out {self.out}: the report would overwrite files it did not write "
                f"({shown}); move them away or choose another folder"
            )
        # Until the stale files are gone, the marker names old and new alike: a kill in
        # between leaves nothing of the report's that a later build would take for the user's.
        _write_marker(self.out, self.previous | set(files))
        for rel in files:
            target = self.out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.new / rel, target)
        for rel in sorted(self.previous - set(files)):
            target = self.out / rel
            if target.is_file() and not target.is_symlink():
                target.unlink()
        _write_marker(self.out, set(files))
        shutil.rmtree(self.new, ignore_errors=True)
        self.previous = set(files)


@contextlib.contextmanager
def report_folder(out: Path) -> Iterator[ReportFolder]:
    """The report folder ``out`` under its lock, ready for a build into ``.new``; refuses
    (:class:`ReportInputError`) a folder that is not a report's or is in use by another
    report."""
    _refuse_foreign(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportInputError(f"cannot create --out {out}: {exc.strerror or exc}") from None
    folder = ReportFolder(out)
    try:
        with exclusive_lock(out / LOCK):
            _refuse_foreign(out)  # again, under the lock
            folder.prepare()
            try:
                yield folder
            finally:
                shutil.rmtree(folder.new, ignore_errors=True)
    except LockBusy:
        raise ReportInputError(
            f"--out {out} is being written by another escapebench report; wait for it "
            "to finish or choose another folder"
        ) from None
