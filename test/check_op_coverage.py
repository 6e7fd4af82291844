#!/usr/bin/env python3
"""Fails unless every op defined in the Edge ODS file appears in each test file.

Usage: check_op_coverage.py EdgeOps.td TEST_FILE...
Keeps "every op has a round-trip and an error test" true as ops are added.
"""
import re
import sys


def defined_ops(td_path):
    text = open(td_path).read()
    # def Edge_FooOp : Edge_SomeClass<"mnemonic", ...
    return sorted(set(re.findall(r'def\s+Edge_\w+Op\s*:\s*Edge_\w+<\s*"([a-z0-9_]+)"', text)))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: check_op_coverage.py EdgeOps.td TEST_FILE...")
    ops = defined_ops(sys.argv[1])
    if not ops:
        sys.exit(f"error: no Edge ops found in {sys.argv[1]}")
    missing = []
    for test in sys.argv[2:]:
        text = open(test).read()
        for op in ops:
            if not re.search(r'"?edge\.' + op + r'\b', text):
                missing.append(f"{test}: no case for edge.{op}")
    for line in missing:
        print(line)
    print(f"{len(ops)} ops checked in {len(sys.argv) - 2} files, {len(missing)} missing")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
