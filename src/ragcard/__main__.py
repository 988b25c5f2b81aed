"""``python -m ragcard``: the same command line as ``ragcard``."""

from ragcard._cli.main import app

app(prog_name="ragcard")
