"""The worker's command line (read without argparse: its import cost every worker start ~12 ms)."""
import pytest

from andrea_runtime import worker

BASE = ["--runtime", "/rt", "--req-fd", "3", "--resp-fd", "4", "--module", "/sub/m.py",
        "--forbid", "andrea_ref,graders"]


def test_the_options_the_grader_passes_are_read():
    a = worker._parse(BASE + ["--site", "/s1", "--site", "/s2", "--functions", "embed,lookup",
                              "--drop-uid", "1234", "--kernel", "--arena-fd", "5",
                              "--arena-size", "100663296", "--region-fd", "6",
                              "--region-size", "67108864"])
    assert (a.runtime, a.req_fd, a.resp_fd, a.module) == ("/rt", 3, 4, "/sub/m.py")
    assert a.site == ["/s1", "/s2"] and a.functions == "embed,lookup"
    assert (a.drop_uid, a.kernel, a.arena_fd, a.arena_size) == (1234, True, 5, 100663296)
    assert (a.region_fd, a.region_size) == (6, 67108864)
    b = worker._parse(BASE)
    assert (b.region_fd, b.region_size) == (None, 0)
    assert (b.site, b.functions, b.drop_uid, b.kernel, b.arena_fd, b.arena_size) == (
        [], "", None, False, None, 0)


@pytest.mark.parametrize("argv, says", [
    (BASE + ["--bogus", "1"], "unknown option '--bogus'"),
    (BASE + ["--site"], "--site needs a value"),
    (BASE[:2] + ["--req-fd", "x"], "--req-fd needs a number"),
    (BASE[2:], "--runtime is required"),
])
def test_a_wrong_command_line_is_refused_with_a_reason(argv, says):
    with pytest.raises(SystemExit) as exc:
        worker._parse(argv)
    assert says in str(exc.value)
