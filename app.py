"""The Hugging Face Space entry (the README's front matter: ``app_file: app.py``): builds and launches the
explorer, `plates.explorer` (``python -m plates.explorer`` does the same).

Gradio is imported in `main`, not when this file is imported: the explorer's render workers are *spawned*
processes (`plates.workers`), and a spawned process imports the script that started the server again (as
``__mp_main__``), so importing Gradio here would put Gradio in every worker (~3 s, ~100 MB each) for nothing."""

import plates.explorer  # noqa: F401  (sets GRADIO_ANALYTICS_ENABLED=False before anything imports Gradio)

__all__ = ["main"]


def main() -> None:
    plates.explorer.serving_process()  # before Gradio is imported: no notebook helpers in a server
    from plates.explorer.app import main as serve  # see the module docstring

    serve()


if __name__ == "__main__":
    main()
