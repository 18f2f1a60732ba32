"""`python -m plates.explorer`: serve the explorer (host and port from ``GRADIO_SERVER_NAME`` /
``GRADIO_SERVER_PORT``; default 127.0.0.1:7860)."""

from plates.explorer.app import main

if __name__ == "__main__":
    main()
