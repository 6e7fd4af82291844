#!/usr/bin/env python3
"""What etch programs use: their operators (Edge op names) and delegate
targets, read from each program's flatbuffer (flatc dumps it as JSON with
runtime/schema/program.fbs). Prints two lines:

    operators edge.add;edge.relu;...   (or none)
    targets xnnpack;...                (or none)

Usage: program_uses.py SCHEMA PROGRAM.etp... (scripts/selective-build.sh,
scripts/cortex-m.sh)."""
import json
import os
import struct
import subprocess
import sys
import tempfile


def main():
    schema, programs = sys.argv[1], sys.argv[2:]
    operators, targets = set(), set()
    with tempfile.TemporaryDirectory() as folder:
        for index, path in enumerate(programs):
            with open(path, "rb") as file:
                header = file.read(32)
                if len(header) < 32 or header[:8] != b"ETCHPRG\0":
                    sys.exit(f"{path}: not an etch program (no ETCHPRG header)")
                _, _, _, offset, size = struct.unpack("<8sIIQQ", header)
                file.seek(offset)
                flatbuffer = file.read(size)
            if len(flatbuffer) != size:
                sys.exit(f"{path}: truncated program")
            binary = os.path.join(folder, f"p{index}.bin")
            with open(binary, "wb") as file:
                file.write(flatbuffer)
            run = subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary",
                                  "-o", folder, schema, "--", binary],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"{path}: the program's flatbuffer does not read as "
                         f"program.fbs: {run.stderr.strip()}")
            with open(os.path.join(folder, f"p{index}.json")) as file:
                program = json.load(file)
            for method in program.get("methods", []):
                operators.update(o["name"] for o in method.get("operators", []))
                targets.update(d["target"] for d in method.get("delegates", []))
    print("operators " + (";".join(sorted(operators)) or "none"))
    print("targets " + (";".join(sorted(targets)) or "none"))


if __name__ == "__main__":
    main()
