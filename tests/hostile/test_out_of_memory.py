"""Out of memory in the jail: the program is the one the OOM killer picks, never the jail's outer process (which
drains its standard error) nor the referee.

The bot is a small C program (compiled here): it fills its private /tmp, a tmpfs whose pages count against its
memory cgroup but towards no process's score, and then its memory.  A program that small, next to the outer
process's Python, is not what the OOM killer would pick by size.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sandbox_levels import needs_jail

from arena.isolation.sandbox import Limits, StartOptions, start

FILL = r"""
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void say(int n) {
    char line[32];
    int length = snprintf(line, sizeof line, "%d\n", n);
    if (write(2, line, length) < 0 && errno == EPIPE)  /* the log first, then the referee */
        (void)!write(1, "EPIPE\n", 6);
    (void)!write(1, line, length);
}

int main(void) {
    static char chunk[1 << 20];
    signal(SIGPIPE, SIG_IGN);  /* to tell, on standard output, that its standard error lost its reader */
    int score = open("/proc/self/oom_score_adj", O_RDWR);
    char was[16] = {0};
    (void)!read(score, was, sizeof was - 1);
    printf("score %s", was);
    /* A bot that would rather not be picked: refused where root could set its score for good. */
    printf("lowered %s\n", write(score, "0", 1) == 1 ? "yes" : "no");
    fflush(stdout);
    (void)!read(0, was, 1);  /* until the test has looked at its cgroup */
    memset(chunk, 't', sizeof chunk);
    int n = 0, fd = open("/tmp/fill", O_WRONLY | O_CREAT, 0600);
    while (write(fd, chunk, sizeof chunk) == sizeof chunk)
        say(++n);
    for (;;) {
        char *held = malloc(1 << 20);
        memset(held, 'm', 1 << 20);
        say(++n);
    }
}
"""


@pytest.fixture(scope="module")
def fill(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on this machine")
    folder = tmp_path_factory.mktemp("oom")
    (folder / "fill.c").write_text(FILL)
    subprocess.run([cc, "-O1", "-o", str(folder / "fill"), str(folder / "fill.c")], check=True)
    return folder / "fill"


@needs_jail
@pytest.mark.parametrize("tmp_mb", [64, 16], ids=["tmp-past-the-limit", "tmp-then-memory"])
def test_out_of_memory_kills_the_program_and_the_jail_drains_its_last_words(tmp_path, fill, tmp_mb):
    log = tmp_path / "bot.log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        box = start([str(fill)], StartOptions(limits=Limits(memory_mb=48, tmp_mb=tmp_mb), stderr=fd))
    finally:
        os.close(fd)
    try:
        assert box.process.stdin is not None and box.process.stdout is not None
        score, _lowered = box.process.stdout.readline(), box.process.stdout.readline()
        memory = next(group for group in box.machine_cgroups if (group / "memory.oom_control").exists())
        held = {int(pid) for pid in (memory / "cgroup.procs").read_text().split()}
        outer = int(Path(f"/proc/{box.process.pid}/oom_score_adj").read_text())
        # Outside the program's memory cgroup, or never picked there.
        assert box.process.pid not in held or outer == -1000
        box.process.stdin.write(b"\n")
        box.process.stdin.flush()
        out = box.process.stdout.read().decode().split("\n")
        assert box.wait(60) is not None
        told = box.exit_text()
    finally:
        box.kill()
    assert score == b"score 1000\n"
    counts = out
    # Its standard error never lost its reader, and every line the program wrote reached the log.
    assert "EPIPE" not in counts, out
    numbers = [int(n) for n in counts if n]
    logged = [int(n) for n in log.read_text().split()]
    assert numbers and logged[-1] >= numbers[-1] >= 30  # killed at most between its two writes of a line
    assert told == "killed for using more than its memory limit of 48 MiB"
    # The referee is in no cgroup of the bot's: an OOM in its memory cgroup never picks the referee.
