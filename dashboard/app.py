"""The dashboard's entry from a source checkout: ``streamlit run dashboard/app.py`` (``PLATES_RESULTS`` sets
the folder). The app itself is `plates.dashboard.app`, shipped in the wheel (``plates dashboard`` runs it)."""

from plates.dashboard.app import main

if __name__ == "__main__":  # a process spawned by multiprocessing re-imports this as __mp_main__: no dashboard
    main()
