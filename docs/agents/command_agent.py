"""A minimal command agent for ragcard: the request as JSON on stdin, the response as JSON on
stdout, one process per call. Answers with my_agent.answer (the sample project's agent,
beside this file):

    [agent]
    type = "command"
    command = ["python", "command_agent.py"]   # run in the folder of ragcard.toml
"""

import json
import sys

from my_agent import answer

request = json.load(sys.stdin)  # {"question", "asker", "program", "cutoff"}
json.dump(answer(request), sys.stdout)
