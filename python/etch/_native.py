"""Where etch's native parts are: inside the wheel (etch/_native/), else the
build tree named by ETCH_BUILD_DIR, else this repository's build/."""
import os

from ._error import Error

_HERE = os.path.dirname(os.path.abspath(__file__))


def _roots():
    yield os.path.join(_HERE, "_native")
    if os.environ.get("ETCH_BUILD_DIR"):
        yield os.environ["ETCH_BUILD_DIR"]
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "build"))


def _find(relative):
    for root in _roots():
        path = os.path.join(root, relative)
        if os.path.exists(path):
            return path
    raise Error(f"etch: cannot find {relative} (not in the wheel's etch/_native, "
                "ETCH_BUILD_DIR or the repository's build/)")


def library():
    """The path of libetch.so, the runtime's C API."""
    return _find(os.path.join("lib", "libetch.so"))


def tool(name):
    """The path of one of etch's tools (et-compile, et-llm, et-run)."""
    return _find(os.path.join("bin", name))
