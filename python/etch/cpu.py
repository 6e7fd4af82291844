"""What the host CPU offers the oneDNN target, as oneDNN will see it.

oneDNN's int8 delegates need VNNI (targets/onednn/schema/BlobFormat.h:
needsVnni) and are refused at load without it. The lit suite and e2e.py ask
here whether this host, under the DNNL_MAX_CPU_ISA (or ETCH_CPU_ISA) cap
the tests run with, has it.
"""
import os

# DNNL_MAX_CPU_ISA caps that keep a VNNI form, and the /proc/cpuinfo flag
# each needs.
_CAP_FLAGS = {
    "ALL": ("avx512_vnni", "avx_vnni"),
    "AVX2_VNNI": ("avx_vnni",),
    "AVX512_CORE_VNNI": ("avx512_vnni",),
    "AVX512_CORE_BF16": ("avx512_vnni",),
    "AVX512_CORE_AMX": ("avx512_vnni",),
}


def cpu_flags(cpuinfo="/proc/cpuinfo"):
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# ETCH_CPU_ISA caps oneDNN too (targets/onednn/runtime: capOnednnIsa) when
# DNNL_MAX_CPU_ISA is unset: its caps as oneDNN's.
_ETCH_CAPS = {"avx512vnni": "ALL", "avx512": "AVX512_CORE", "avx2": "AVX2",
              "scalar": "SSE41"}


def onednn_has_vnni(environ=os.environ):
    cap = environ.get("DNNL_MAX_CPU_ISA") or _ETCH_CAPS.get(
        environ.get("ETCH_CPU_ISA", ""), "ALL")
    cap = cap.upper()
    flags = cpu_flags()
    return any(flag in flags for flag in _CAP_FLAGS.get(cap, ()))
