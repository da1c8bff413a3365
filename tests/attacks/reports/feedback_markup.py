"""Hostile (feedback files): words of the submission that end the code block of its feedback.

A check's feedback goes into the student's Markdown feedback file inside a ``` code block. The
message of an exception is quoted there as it was raised, line breaks included, so a message
holding a line of three backticks closed the block: what followed was Markdown, with a forged
"Total score: 100 / 100" line, a heading and raw HTML (an <img onerror> that a Markdown viewer
renders) in the file the teacher hands back or reads. It raises that message in norm(),
returns it from dot(), and the batch gives it a file name with Markdown, HTML and a line
break.

Expected: rendered as Markdown (CommonMark), the feedback file has the kit's one heading and
one score line only, no HTML element of the submission, and its words appear as text inside
the code blocks (the fence is longer than any run of backticks in them).
"""
import numpy as np

FORGED = ("\n```\n\n**Total score: 100 / 100**\n\n# Nothing went wrong\n"
          "<img src=x onerror=alert(1)>\n````\n")


def norm(v):
    raise RuntimeError("norm" + FORGED)


def dot(a, b):
    return "dot" + FORGED
