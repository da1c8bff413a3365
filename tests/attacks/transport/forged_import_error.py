"""Hostile (forged import error): at import, writes its own first reply to the reply pipe, an
"import_error" whose message is 7 MiB, whose line number is a list of 300,000 numbers and whose
source line is 1 MiB, then exits. The grader put that dict into the report as it came: every
format was 10-24 MB and rendering the text took over a minute.

Expected: the import error is typed and bounded (message 4000 characters, a line number or
none, source line 300 characters); every format stays small.
"""
import json
import os
import struct
import sys

_fd = int(sys.argv[sys.argv.index("--resp-fd") + 1])
_head = json.dumps({"import_error": {"type": "SyntaxError" + "B" * 1000, "msg": "A" * (7 << 20),
                                     "line": list(range(300_000)), "text": "C" * (1 << 20)},
                    "blobs": []}).encode()
_data = struct.pack(">QI", 4 + len(_head), len(_head)) + _head
while _data:
    _data = _data[os.write(_fd, _data):]
os._exit(0)
