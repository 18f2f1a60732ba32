"""The Hugging Face Space entry (the README's front matter: ``app_file: app.py``): builds and launches the
explorer, `plates.explorer` (``python -m plates.explorer`` does the same)."""

from plates.explorer.app import build_app, launch_options, main

__all__ = ["build_app", "launch_options", "main"]

if __name__ == "__main__":
    main()
