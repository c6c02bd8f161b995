"""How many bits a turn two bots carry through the page cache of a file both are shown, by each way of reading it.

    python benchmarks/pagecache_channel.py                     # this checkout's walls
    PYTHONPATH=/path/to/other/checkout python benchmarks/pagecache_channel.py   # another's, to compare

A sender and a receiver, two C programs (compiled here with the machine's C compiler), run in two jails as a
referee runs two bots at a table: the sender runs while the receiver is frozen, then it is frozen and the receiver
runs, and so on (a "turn" is one of each).  The file is 64 MiB of root's, readable by any uid, as /usr's files are.
The sender writes a bit by caching a page (``posix_fadvise(RANDOM)`` and a one-byte ``pread``), and clears the
bits it wrote with ``posix_fadvise(DONTNEED)``.  Every 16-page block carries 15 bits: its first page is the one the
receiver touches so that the kernel's fault-around maps the block's cached pages.  The receiver reads them by:

* ``pagemap``: mapping the block, touching its first page, reading the present bits of /proc/self/pagemap;
* ``mincore``: the same, then ``mincore`` (which for a file the caller cannot write shows the mapped pages);
* ``nowait``: ``preadv2(..., RWF_NOWAIT)`` of each page, which fails with EAGAIN when it is not cached;
* ``read-time``: the time a one-byte ``pread`` takes (a cached page: about a microsecond; else the disk's);
* ``fault-time``: the time a touch of each page of the mapped block takes (mapped by fault-around: no fault).

Each method sends ``--turns`` turns of ``--bits`` bits on fresh pages, and then as many on the same pages again
(which needs the sender to clear what it wrote).  Printed for each: the bit error rate, and the bits a turn that
get through, the bits sent times 1 - H(error rate) (a binary symmetric channel's capacity).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from channels import TableBot

import arena
from arena.isolation import sandbox

PAGES_A_BLOCK, BITS_A_BLOCK = 16, 15
FILE_MB = 64
METHODS = ("pagemap", "mincore", "nowait", "read-time", "fault-time")

PROGRAM = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 16
#define BITS 15
static long page;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static off_t bit_page(long first, long i) { return (first + i / BITS) * BLOCK + 1 + i % BITS; }

/* The receiver's reading of n bits from block ``first`` on, into out ('0', '1', '?' where the method failed). */
static void receive(int fd, const char *method, long first, long n, char *out, double threshold) {
    long blocks = (n + BITS - 1) / BITS;
    int pagemap = open("/proc/self/pagemap", O_RDONLY);
    for (long b = 0; b < blocks; b++) {
        off_t start = (first + b) * BLOCK * page;
        long count = n - b * BITS < BITS ? n - b * BITS : BITS;
        char *bits = out + b * BITS;
        if (!strcmp(method, "nowait") || !strcmp(method, "read-time")) {
            for (long i = 0; i < count; i++) {
                char byte;
                off_t at = start + (1 + i) * page;
                if (!strcmp(method, "nowait")) {
                    struct iovec one = {&byte, 1};
                    ssize_t got = preadv2(fd, &one, 1, at, RWF_NOWAIT);
                    bits[i] = got == 1 ? '1' : errno == EAGAIN ? '0' : '?';
                } else {
                    double t = now_us();
                    (void)!pread(fd, &byte, 1, at);
                    bits[i] = now_us() - t < threshold ? '1' : '0';
                }
            }
            continue;
        }
        char byte;
        (void)!pread(fd, &byte, 1, start);  /* the block's first page, cached for the touch */
        volatile char *map = mmap(NULL, BLOCK * page, PROT_READ, MAP_SHARED, fd, start);
        madvise((void *)map, BLOCK * page, MADV_RANDOM);  /* a fault reads no page around it */
        (void)map[0];  /* fault-around maps the block's cached pages */
        if (!strcmp(method, "pagemap")) {
            uint64_t entries[BLOCK];
            off_t at = (off_t)((uintptr_t)map / page) * 8;
            if (pread(pagemap, entries, sizeof entries, at) != sizeof entries)
                memset(bits, '?', count);
            else
                for (long i = 0; i < count; i++)
                    bits[i] = entries[1 + i] >> 63 ? '1' : '0';
        } else if (!strcmp(method, "mincore")) {
            unsigned char vector[BLOCK];
            if (mincore((void *)map, BLOCK * page, vector))
                memset(bits, '?', count);
            else
                for (long i = 0; i < count; i++)
                    bits[i] = vector[1 + i] & 1 ? '1' : '0';
        } else {
            for (long i = 0; i < count; i++) {
                double t = now_us();
                (void)map[(1 + i) * page];
                bits[i] = now_us() - t < threshold ? '1' : '0';
            }
        }
        munmap((void *)map, BLOCK * page);  /* a mapped page cannot be dropped: the sender's clear needs this */
    }
    close(pagemap);
    out[n] = 0;
}

int main(int argc, char **argv) {
    page = sysconf(_SC_PAGESIZE);
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 2; }
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);  /* no read-ahead: a read caches its page only */
    char line[1 << 16], method[32], *out = malloc(1 << 16);
    long first, n;
    double threshold;
    while (fgets(line, sizeof line, stdin)) {
        char bits[1 << 15];
        if (sscanf(line, "set %ld %32767s", &first, bits) == 2) {
            for (long i = 0; bits[i]; i++)
                if (bits[i] == '1') {
                    char byte;
                    (void)!pread(fd, &byte, 1, bit_page(first, i) * page);
                }
            puts("ok");
        } else if (sscanf(line, "clear %ld %ld", &first, &n) == 2) {
            long blocks = (n + BITS - 1) / BITS;
            printf("%d\n", posix_fadvise(fd, first * BLOCK * page, blocks * BLOCK * page, POSIX_FADV_DONTNEED));
        } else if (sscanf(line, "read %31s %ld %ld %lf", method, &first, &n, &threshold) == 4) {
            receive(fd, method, first, n, out, threshold);
            puts(out);
        }
        fflush(stdout);
    }
    return 0;
}
"""


def entropy(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def run(method: str, sender: TableBot, receiver: TableBot, first: int, bits: int, turns: int, reuse: bool,
        threshold: float, chance: random.Random) -> tuple[int, int, int]:
    """(bits sent, bits wrong, bits the receiver could not read) over ``turns`` turns."""
    blocks = (bits + BITS_A_BLOCK - 1) // BITS_A_BLOCK
    sent = wrong = unread = 0
    for turn in range(turns):
        block = first if reuse else first + turn * blocks
        message = "".join(chance.choice("01") for _ in range(bits))
        if reuse and turn:
            sender.turn(f"clear {block} {bits}")
        sender.turn(f"set {block} {message}")
        got = receiver.turn(f"read {method} {block} {bits} {threshold}")
        sent += bits
        unread += got.count("?")
        wrong += sum(1 for a, b in zip(message, got) if b != "?" and a != b) + max(bits - len(got), 0)
    return sent, wrong, unread


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", type=int, default=240, help="bits a turn (default 240: 16 blocks)")
    parser.add_argument("--turns", type=int, default=6, help="turns a method and a way (default 6)")
    parser.add_argument("--threshold-us", type=float, default=8.0,
                        help="a timed read or touch quicker than this is a cached page (default 8 us)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("no C compiler on this machine")
    if sandbox.walls() != "jail":
        sys.exit("the jail is needed (root, namespaces): the two bots at a table are two jails")
    blocks = (args.bits + BITS_A_BLOCK - 1) // BITS_A_BLOCK
    needed = len(METHODS) * (args.turns + 1) * blocks * PAGES_A_BLOCK * os.sysconf("SC_PAGE_SIZE")
    if needed > FILE_MB << 20:
        sys.exit(f"--bits x --turns needs {needed >> 20} MiB of file, more than its {FILE_MB}")
    # A folder others may enter (so that the file is shown to the bots, not staged), on a disk file system.
    folder = Path(tempfile.mkdtemp(prefix="arena-pagecache-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None))
    chance = random.Random(args.seed)
    try:
        folder.chmod(0o755)
        (folder / "bot.c").write_text(PROGRAM)
        subprocess.run([cc, "-O2", "-o", str(folder / "bot"), str(folder / "bot.c")], check=True)
        data = folder / "shared"
        with open(data, "wb") as f:
            for _ in range(FILE_MB):
                f.write(os.urandom(1 << 20))
            os.fsync(f.fileno())
        data.chmod(0o644)
        fd = os.open(data, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # nothing of it cached to begin with
        os.close(fd)
        sender, receiver = TableBot([str(folder / "bot"), str(data)]), TableBot([str(folder / "bot"), str(data)])
        print(f"arena: {Path(arena.__file__).parent}")
        print(f"walls: {sender.box.walls}")
        print(f"{args.bits} bits a turn, {args.turns} turns a method and a way; a timed page under "
              f"{args.threshold_us} us counts as cached\n")
        print(f"{'method':12} {'pages':6} {'error rate':>10} {'unread':>7} {'bits a turn through':>20}")
        try:
            first = 0
            for method in METHODS:
                for reuse in (False, True):
                    sent, wrong, unread = run(method, sender, receiver, first, args.bits,
                                              args.turns if not reuse else args.turns, reuse, args.threshold_us,
                                              chance)
                    first += (1 if reuse else args.turns) * blocks
                    # Bits the receiver could not read carry nothing: counted as a coin's toss.
                    rate = (wrong + unread / 2) / sent
                    through = args.bits * (1 - entropy(rate))
                    print(f"{method:12} {'same' if reuse else 'fresh':6} {rate:10.3f} {unread / sent:7.0%} "
                          f"{through:20.1f}", flush=True)
        finally:
            sender.close()
            receiver.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
