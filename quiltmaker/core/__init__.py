"""The rules of Patchwork: components, moves, positions, games and records.

The core imports only itself and the standard library (a test holds it to
that), so everything else can build on it and it on nothing.
"""
