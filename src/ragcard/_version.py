"""The installed version, read without importing the library (``ragcard --version`` is cheap)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("ragcard")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+local"
