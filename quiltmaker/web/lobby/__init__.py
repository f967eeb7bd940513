"""Finding an opponent: the lobby's challenges, the quick match, and their routes.

- :mod:`.challenges`: open and named challenges, who is online, a called-off challenge taken out at a game's end.
- :mod:`.quickmatch`: the seeks of the quick match and their pairing, across processes.
- :mod:`.api`: the lobby's HTTP routes and its socket.
"""
