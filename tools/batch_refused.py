"""batch_refused.py -- what is wrong with a submission, in words that are safe to print.

Part of `make grade` (tools/grade_batch.py). Refused carries the reason a submission, or one
lesson of it, gets no points; the message ends up in the gradebook's status column, in result.json
and on the console. Anything a student controls that goes into it (a member name, a library's
error text) goes through clean() first, so that a name cannot carry a newline, a terminal escape or
a spreadsheet formula there, nor fill the column.

The unpacking child imports this module inside the sandbox (tools/batch_unpack.py), where only
the standard library and the files bound into the box exist: it must stay that small.
"""


class Refused(Exception):
    """What is wrong with a submission, in words fit for the gradebook."""


def clean(text, limit=60):
    """A student-controlled string made fit for a message: safe characters only, bounded."""
    text = "".join(c if c.isascii() and (c.isalnum() or c in " ._/@+-:") else "?" for c in str(text))
    return text if len(text) <= limit else text[:limit] + "..."
