"""Packs etch's Python package with its native parts into one wheel, as
auditwheel repairs one: the tools and libetch.so with every shared library
they need beyond glibc and the C++ runtime, each renamed with a hash of its
bytes (libXNNPACK.so.0 -> libXNNPACK-1a2b3c4d.so.0) so that a process that
already holds another copy (torch's) keeps its own, and found through
$ORIGIN run paths. Pure Python over ctypes, so one wheel serves every
CPython 3; the platform tag names the newest glibc symbol the parts use.

    make_wheel.py BUILD_DIR OUT_DIR [--store]   (prints the wheel's path)

--store writes the members uncompressed (the suite's tests: the same files
in a second rather than 20; a 340 MB wheel).

Needs patchelf and objdump. Standard library only.
"""
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_FILES = ["__init__.py", "_error.py", "_native.py", "capi.py", "compiler.py",
                 "runtime.py", "llm.py", "inspection.py"]
TOOLS = ["et-compile", "et-run", "et-llm"]
# What every glibc system has (the manylinux policy's core): not bundled.
SYSTEM = {"linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6",
          "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1",
          "libresolv.so.2", "libstdc++.so.6", "libgcc_s.so.1"}


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def version():
    text = open(os.path.join(HERE, "etch", "__init__.py")).read()
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def dependencies(elf):
    """soname -> path of every shared library elf needs (ldd: transitively)."""
    found = {}
    for line in run("ldd", elf).splitlines():
        match = re.match(r"\s*(\S+) => (\S+) \(", line)
        if match and match.group(1) not in SYSTEM:
            found[match.group(1)] = os.path.realpath(match.group(2))
        elif "not found" in line:
            sys.exit(f"make_wheel: {elf} needs {line.split()[0]}, which is not found")
    return found


def hashed_name(soname, path):
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()[:8]
    stem, _, suffix = soname.partition(".so")
    return f"{stem}-{digest}.so{suffix}"


def newest_glibc(elf):
    versions = re.findall(r"GLIBC_(\d+)\.(\d+)", run("objdump", "-p", elf))
    return max(((int(a), int(b)) for a, b in versions), default=(2, 17))


def stage(build, root):
    package = os.path.join(root, "etch")
    native = os.path.join(package, "_native")
    os.makedirs(os.path.join(native, "bin"))
    os.makedirs(os.path.join(native, "lib"))
    for name in PACKAGE_FILES:
        shutil.copy(os.path.join(HERE, "etch", name), package)
    parts = [shutil.copy(os.path.join(build, "bin", tool), os.path.join(native, "bin"))
             for tool in TOOLS]
    parts.append(shutil.copy(os.path.join(build, "lib", "libetch.so"),
                             os.path.join(native, "lib")))
    needed = {}
    for part in parts:
        needed.update(dependencies(part))
    renamed = {soname: hashed_name(soname, path) for soname, path in needed.items()}
    bundled = {}
    for soname, path in sorted(needed.items()):
        copy = os.path.join(native, "lib", renamed[soname])
        shutil.copyfile(path, copy)
        os.chmod(copy, 0o755)
        bundled[copy] = soname
    # One edit per patchelf call: patchelf 0.14 mixes up the string table
    # when one call sets the soname and replaces needed entries.
    for elf in parts + list(bundled):
        if elf in bundled:
            run("patchelf", "--set-soname", renamed[bundled[elf]], elf)
        edits = []
        for old in run("patchelf", "--print-needed", elf).split():
            if old in renamed:
                edits += ["--replace-needed", old, renamed[old]]
        if edits:
            run("patchelf", *edits, elf)
        origin = "$ORIGIN/../lib" if elf in parts and elf.endswith(tuple(TOOLS)) \
            else "$ORIGIN"
        run("patchelf", "--set-rpath", origin, elf)
    glibc = max(newest_glibc(elf) for elf in parts + list(bundled))
    return glibc, sorted(renamed)


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return [path, "sha256=" + digest.decode(), str(len(data))]


def pack(root, out, glibc, bundled, compression):
    name, tag = "etch", f"py3-none-manylinux_{glibc[0]}_{glibc[1]}_x86_64"
    dist_info = f"{name}-{version()}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version()}\n"
                "Summary: etch: an ahead-of-time compiler and runtime for PyTorch "
                "and ONNX models\nRequires-Python: >=3.11\nRequires-Dist: numpy\n"
                f"\nBundled libraries: {', '.join(bundled)}\n")
    wheel = (f"Wheel-Version: 1.0\nGenerator: etch make_wheel.py\n"
             f"Root-Is-Purelib: false\nTag: {tag}\n")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{name}-{version()}-{tag}.whl")
    records = []
    with zipfile.ZipFile(path, "w", compression, compresslevel=6) as archive:
        def add(arcname, data, mode=0o644):
            info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = compression
            archive.writestr(info, data)
            records.append(record_line(arcname, data))
        for folder, _, files in sorted(os.walk(root)):
            for file in sorted(files):
                full = os.path.join(folder, file)
                mode = 0o755 if os.access(full, os.X_OK) else 0o644
                add(os.path.relpath(full, root), open(full, "rb").read(), mode)
        add(f"{dist_info}/METADATA", metadata.encode())
        add(f"{dist_info}/WHEEL", wheel.encode())
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(
            records + [[f"{dist_info}/RECORD", "", ""]])
        archive.writestr(f"{dist_info}/RECORD", text.getvalue())
    return path


def main():
    arguments = [a for a in sys.argv[1:] if a != "--store"]
    if len(arguments) != 2:
        sys.exit("usage: make_wheel.py BUILD_DIR OUT_DIR [--store]")
    build, out = arguments
    compression = zipfile.ZIP_STORED if "--store" in sys.argv else zipfile.ZIP_DEFLATED
    root = os.path.join(out, "stage")
    shutil.rmtree(root, ignore_errors=True)
    glibc, bundled = stage(build, root)
    for old in os.listdir(out):
        if old.endswith(".whl"):
            os.remove(os.path.join(out, old))
    path = pack(root, out, glibc, bundled, compression)
    shutil.rmtree(root)
    print(path)


if __name__ == "__main__":
    main()
