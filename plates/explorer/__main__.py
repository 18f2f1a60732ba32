"""`python -m plates.explorer`: serve the explorer (host and port from ``GRADIO_SERVER_NAME`` /
``GRADIO_SERVER_PORT``; default 127.0.0.1:7860)."""

from plates.explorer import serving_process

serving_process()  # before Gradio is imported (plates.explorer.serving_process)

from plates.explorer.app import main  # noqa: E402

if __name__ == "__main__":
    main()
