"""Settings packages: ``base`` (development default), ``test`` and ``production``."""
