"""``pi checkpoints gc``: prune the file-checkpoint store (``pi_app.coding.checkpoints``).

Removes every stored file content that no session file names any more (sessions deleted, or
checkpoints of files since gone) and prints one line: how many contents and how many bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

USAGE = "Usage: pi checkpoints gc   (remove stored file contents no session refers to)"


def run_checkpoint_command(args: Sequence[str]) -> int:
    if list(args) in ([], ["--help"], ["-h"]):
        print(USAGE)
        return 0
    if list(args) != ["gc"]:
        sys.stderr.write(f"pi checkpoints: unknown command {' '.join(args)!r}\n{USAGE}\n")
        return 2
    from pi_app.coding import paths
    from pi_app.coding.checkpoints import collect_garbage

    removed, freed = collect_garbage(paths.agent_dir(), paths.sessions_root())
    print(f"Removed {removed} stored file version{'s' if removed != 1 else ''} ({freed / 1_048_576:.1f} MiB)")
    return 0
