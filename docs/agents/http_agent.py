"""A minimal HTTP agent for ragcard: POST /ask answers in one JSON body, POST /ask/stream
streams the same answer as server-sent events. Serves my_agent.answer (the sample project's
agent, beside this file); run `python http_agent.py 8000` and point [agent] at it:

    [agent]
    type = "http"
    url = "http://127.0.0.1:8000/ask"        # or /ask/stream with stream = "sse"
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from my_agent import answer


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        reply = answer(request)  # {"question", "asker", "program", "cutoff"} -> response
        if self.path == "/ask/stream":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for word in reply.pop("answer").split(" "):  # text deltas, then the other fields
                self.wfile.write(b"data: " + json.dumps({"delta": word + " "}).encode() + b"\n\n")
            self.wfile.write(b"data: " + json.dumps(reply).encode() + b"\n\ndata: [DONE]\n\n")
            return
        body = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
