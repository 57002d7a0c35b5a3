"""``python -m pi_app`` is the same command as ``pi``."""

from pi_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
