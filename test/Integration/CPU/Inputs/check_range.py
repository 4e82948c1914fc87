#!/usr/bin/env python3
"""Checks the values kiln-run printed for one result lie in [LO, HI).

Usage: check_range.py OUTPUT.txt RESULT LO HI [--all]

OUTPUT.txt is kiln-run's printed results ("resultN: tensor<...>" then a
"[v, v, ...]" line, printed in full). With --all, every integer of [LO, HI)
must also occur. Exits non-zero with a message otherwise.
"""
import argparse
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("result", type=int)
    parser.add_argument("low", type=float)
    parser.add_argument("high", type=float)
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args()
    lines = open(args.output).read().splitlines()
    header = f"result{args.result}:"
    index = next(i for i, line in enumerate(lines) if line.startswith(header))
    text = lines[index + 1].strip()
    if "..." in text:
        sys.exit("the result was not printed in full")
    values = [float(v) for v in text.strip("[]").split(",")]
    bad = [v for v in values if not args.low <= v < args.high]
    if bad:
        sys.exit(f"values outside [{args.low}, {args.high}): {bad}")
    if args.all:
        missing = set(range(int(args.low), int(args.high))) - set(values)
        if missing:
            sys.exit(f"never drawn: {sorted(missing)}")
    print(f"{len(values)} values in [{args.low}, {args.high})")


if __name__ == "__main__":
    main()
