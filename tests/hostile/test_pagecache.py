"""The page cache of a file every bot is shown, as a channel between bots: a bot may not drop another's
cached pages, nor ask the kernel which pages are cached.

A small C program (compiled here with the machine's C compiler) makes the calls in the sandbox; the test
process, root and unfiltered, reads the page cache's state with ``mincore`` from outside.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_levels import JAIL, USERNS  # the levels this machine gives, found once

from arena.isolation.sandbox import StartOptions, start

PAGE = os.sysconf("SC_PAGE_SIZE")
LEVELS = [pytest.param("jail", marks=pytest.mark.skipif(not JAIL, reason="the jail needs root and namespaces")),
          pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces are refused here")),
          pytest.param("rlimits")]
#: ``probe FILE PAGE evict``: every way to drop the page; ``probe FILE PAGE``: every way to see a page cached.
PROBE = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *outcome(long result) { return result < 0 ? strerrorname_np(errno) : "ok"; }

int main(int argc, char **argv) {
    long page = sysconf(_SC_PAGESIZE);
    int fd = open(argv[1], O_RDONLY);
    off_t at = atol(argv[2]) * page;
    if (fd < 0) { perror(argv[1]); return 2; }
    if (argc > 3) {
        char *map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, at);
        volatile char c = map[0];  /* the page is cached: a minor fault, no read-around */
        (void)c;
        printf("madvise-cold %s\n", outcome(madvise(map, page, MADV_COLD)));
        printf("madvise-pageout %s\n", outcome(madvise(map, page, MADV_PAGEOUT)));
        printf("madvise-dontneed %s\n", outcome(madvise(map, page, MADV_DONTNEED)));
        munmap(map, page);  /* the kernel drops no page that a process maps */
        printf("fadvise-noreuse %d\n", posix_fadvise(fd, at, page, POSIX_FADV_NOREUSE));
        printf("fadvise-dontneed %d\n", posix_fadvise(fd, at, page, POSIX_FADV_DONTNEED));
        return 0;
    }
    char *map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, at);
    unsigned char vector[1];
    printf("mincore %s\n", outcome(mincore(map, page, vector)));
    char byte;
    struct iovec one = {&byte, 1};
    printf("preadv2-nowait %s\n", outcome(preadv2(fd, &one, 1, at, RWF_NOWAIT)));
    printf("preadv2 %s\n", outcome(preadv2(fd, &one, 1, at, 0)));
    const char *home = getenv("HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/written", home ? home : "/tmp");
    int out = open(path, O_WRONLY | O_CREAT, 0600);
    printf("pwritev2-nowait %s\n", outcome(pwritev2(out, &one, 1, 0, RWF_NOWAIT)));
    printf("pwritev2 %s\n", outcome(pwritev2(out, &one, 1, 0, 0)));
    struct { unsigned long long offset, len; } range = {0, 0};
    unsigned long long stat[8];
    printf("cachestat %s\n", outcome(syscall(451, fd, &range, stat, 0)));
    printf("fadvise-random %d\n", posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM));
    printf("fadvise-willneed %d\n", posix_fadvise(fd, at, page, POSIX_FADV_WILLNEED));
    return 0;
}
"""

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]


def cached(path: Path, page: int) -> bool:
    """Whether the page is in the machine's page cache (root sees every file's, through mincore)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, PAGE, 1, 1, fd, page * PAGE)  # PROT_READ, MAP_SHARED
        assert address not in (None, ctypes.c_void_p(-1).value), os.strerror(ctypes.get_errno())
        try:
            vector = (ctypes.c_ubyte * 1)()
            assert libc.mincore(address, PAGE, vector) == 0, os.strerror(ctypes.get_errno())
            return bool(vector[0] & 1)
        finally:
            libc.munmap(address, PAGE)
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Path, Path]]:
    """The probe and a 4 MiB file of root's that any uid may read (not staged: every bot sees this file)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on this machine")
    folder = Path(tempfile.mkdtemp(prefix="arena-pagecache-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None))
    try:
        folder.chmod(0o755)
        (folder / "probe.c").write_text(PROBE)
        subprocess.run([cc, "-O1", "-o", str(folder / "probe"), str(folder / "probe.c")], check=True)
        data = folder / "data"
        with open(data, "wb") as f:
            f.write(os.urandom(4 << 20))
            os.fsync(f.fileno())  # clean pages: only clean ones can be dropped
        data.chmod(0o644)
        yield folder / "probe", data
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(command: list[str], level: str) -> dict[str, str]:
    box = start(command, StartOptions(level=level, stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        out = box.process.stdout.read().decode()
        assert box.wait(30) == 0, out
    finally:
        box.kill()
    return dict(line.split(" ", 1) for line in out.splitlines())


def _cache_one(data: Path, page: int) -> None:
    """Leave exactly ``page`` of ``data`` cached around it (no read-ahead)."""
    fd = os.open(data, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        os.pread(fd, 1, page * PAGE)
    finally:
        os.close(fd)


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_cannot_drop_a_page_another_process_cached(shared, level):
    probe, data = shared
    page = 37
    _cache_one(data, page)
    assert cached(data, page) and not cached(data, page + 1)
    said = run([str(probe), str(data), str(page), "evict"], level)
    # Every advice "works", as far as the bot can tell; none drops the page.
    assert said == {"fadvise-dontneed": "0", "fadvise-noreuse": "0", "madvise-cold": "ok", "madvise-pageout": "ok",
                    "madvise-dontneed": "ok"}
    assert cached(data, page)


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_cannot_ask_which_pages_are_cached(shared, level):
    probe, data = shared
    said = run([str(probe), str(data), "5"], level)
    assert said["mincore"] == "ENOSYS"
    assert said["preadv2-nowait"] == said["pwritev2-nowait"] == "EOPNOTSUPP"
    assert said["cachestat"] == "ENOSYS"
    # What programs use stays: plain preadv2/pwritev2, and the advice that only reads ahead or not.
    assert said["preadv2"] == said["pwritev2"] == "ok"
    assert said["fadvise-random"] == said["fadvise-willneed"] == "0"

