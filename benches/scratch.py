"""The scratch folder a bench script copies a tree into and removes at the end.

Shared by the bench scripts that take `--work`: a mistyped `--work` must not cost anyone a
directory, so a folder is only ever removed when the script made it (it holds the
script's marker file) or it is empty.
"""

import shutil
import sys
from pathlib import Path

HELP = "scratch folder (made, removed at the end; an existing one only if this script made it or it is empty)"


def fresh(work, marker_name):
    """`work` made empty and marked as `marker_name`'s, or the script exits saying why."""
    work = Path(work)
    marker = work / marker_name
    if work.exists():
        if not (marker.exists() or (work.is_dir() and not any(work.iterdir()))):
            sys.exit(f"--work {work} exists and is not a scratch folder of this script; "
                     "name a new or empty folder")
        shutil.rmtree(work)
    work.mkdir(parents=True)
    marker.touch()
    return work
