"""The rules again, compiled with numba for speed (:mod:`.rules`), held equal to the core by differential tests."""
