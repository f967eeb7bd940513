"""Accounts: signing up and in, sessions, and the players' pages.

- :mod:`.accounts`: accounts, passwords (argon2), sessions, the seats an account holds.
- :mod:`.api`: the account's HTTP routes.
- :mod:`.profiles`: a player's profile and lists of games.
"""
