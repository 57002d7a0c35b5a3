"""Plan mode: think first, change nothing, then execute an approved plan (70 R-NOGO-05).

- ``/plan`` (or ``ctrl+alt+p``, or starting with ``--plan``) toggles plan mode.
- In plan mode only read-only tools are active and bash commands must match a read-only allow-list
  (``commands.py``); anything else is blocked with a reason the model sees.
- Each prompt in plan mode carries a hidden instruction to answer with numbered steps under a
  ``Plan:`` heading; the steps are extracted when the run ends.
- "Execute the plan" (offered in a dialog, or ``/plan-execute``) restores the full tool set and asks
  the model to work through the steps, marking each finished one with ``[DONE:n]``; a widget shows
  progress.
- The state is stored in ``plan-mode`` custom entries, so it survives ``--resume``.

    pi -e examples/extensions/plan_mode
"""

from pi_app.ext import ExtensionAPI

from .extension import setup as _setup


def setup(pi: ExtensionAPI) -> None:
    _setup(pi)
