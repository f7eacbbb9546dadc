#!/usr/bin/env python3
"""receiver.py - a small OTLP/HTTP receiver for the tests of `ccsg export
--endpoint` (test/check-e2e-export.c).

    python3 receiver.py MODE DIR

Listens on 127.0.0.1, a port of its choosing, written to DIR/port once it
listens.  MODE says how it answers POST /v1/traces:

    accept   200 and an empty ExportTraceServiceResponse ({}); each
             request's body is saved as DIR/request-N.json
    refuse   400 with a message, as a receiver that cannot parse the data
    busy     503 (try again later), every time

Every request is counted in DIR/requests (one line each: the path, the
Content-Type, the body's length).  Runs until killed.
"""
import http.server
import os
import sys


def main():
    mode, out = sys.argv[1], sys.argv[2]
    count = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n)
            count[0] += 1
            with open(os.path.join(out, "requests"), "a") as f:
                f.write("%s %s %d\n" % (self.path,
                                        self.headers.get("Content-Type"),
                                        len(body)))
            if mode == "accept" and self.path == "/v1/traces":
                with open(os.path.join(out, "request-%d.json" % count[0]),
                          "wb") as f:
                    f.write(body)
                self.answer(200, b"{}")
            elif mode == "busy":
                self.answer(503, b"busy")
            else:
                self.answer(400, b"cannot parse the request body")

        def answer(self, code, text):
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    tmp = os.path.join(out, "port.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, os.path.join(out, "port"))
    server.serve_forever()


if __name__ == "__main__":
    main()
