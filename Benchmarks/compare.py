#!/usr/bin/env python3
"""Runs pairs of commands alternately (ours, theirs, ours, theirs, ...), output to /dev/null,
and prints per pair the median wall time of each, the ratio, and each one's peak memory
(max RSS, from wait4). Alternating keeps both sides under the same machine conditions.

    compare.py RUNS  NAME  OURS  THEIRS  [NAME OURS THEIRS ...]

OURS and THEIRS are shell-quoted command lines, run without a shell.
"""
import os, shlex, statistics, sys, time


def run(argv):
    devnull = os.open(os.devnull, os.O_WRONLY)
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {shlex.join(argv)}")
    return elapsed, usage.ru_maxrss  # KiB on Linux


def main():
    runs = int(sys.argv[1])
    rest = sys.argv[2:]
    for i in range(0, len(rest), 3):
        name, ours, theirs = rest[i], shlex.split(rest[i + 1]), shlex.split(rest[i + 2])
        run(ours), run(theirs)  # warm-up: both read the store once
        times = {"ours": [], "theirs": []}
        peak = {"ours": 0, "theirs": 0}
        for _ in range(runs):
            for side, argv in (("ours", ours), ("theirs", theirs)):
                t, rss = run(argv)
                times[side].append(t)
                peak[side] = max(peak[side], rss)
        a, b = statistics.median(times["ours"]), statistics.median(times["theirs"])
        print(f"{name:<22} {a * 1000:9.1f} ms {b * 1000:9.1f} ms {a / b:7.2f}x"
              f"   {peak['ours'] / 1024:7.1f} MB {peak['theirs'] / 1024:7.1f} MB", flush=True)


if __name__ == "__main__":
    main()
