"""The engine protocol: :mod:`.server` answers it (``quiltmaker engine``), :mod:`.client` drives any engine that speaks it."""
