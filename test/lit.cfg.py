# lit configuration for etch: every .mlir (and .test) file under test/ runs
# with etch's tools and LLVM 19's FileCheck/not/count/split-file on PATH.
import os

import lit.formats

config.name = "etch"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "regressions", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "plugin"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.etch_binary_dir, "test")

path = os.pathsep.join(
    [config.etch_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])]
)
config.environment["PATH"] = path
# Sanitizer builds: etch handles a failed allocation (a damaged file may ask
# for anything), so ASan must return null rather than abort; stacks on
# UBSan reports. Harmless for other builds.
config.environment["ASAN_OPTIONS"] = os.environ.get(
    "ASAN_OPTIONS", "allocator_may_return_null=1:detect_leaks=1")
# Leaks inside third-party drivers (test/lsan.supp says which and why).
config.environment["LSAN_OPTIONS"] = os.environ.get(
    "LSAN_OPTIONS", "suppressions=" + os.path.join(config.etch_source_dir, "test", "lsan.supp"))
config.environment["UBSAN_OPTIONS"] = os.environ.get("UBSAN_OPTIONS", "print_stacktrace=1")
# Vulkan delegates run under the Khronos validation layer (scripts/setup.sh
# installs it): any message it reports fails the init or execute.
config.environment["ETCH_VULKAN_VALIDATION"] = os.environ.get("ETCH_VULKAN_VALIDATION", "1")
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%etch_src", config.etch_source_dir))
config.substitutions.append(("%etch_tools", config.etch_tools_dir))

# Debian's Python with torch 1.13 / torchvision / onnx / numpy, for test
# inputs made at test time; and the build-tree cache for generated corpora.
config.substitutions.append(("%refpy", "/usr/bin/python3"))
config.substitutions.append(("%corpus", config.etch_corpus_dir))
config.substitutions.append(("%etch_build", config.etch_binary_dir))
config.substitutions.append(("%etch_lib", os.path.join(config.etch_binary_dir, "lib")))
config.substitutions.append(("%etch_plugin", os.path.join(config.etch_binary_dir, "lib", "etch-test-plugin.so")))

# End-to-end runs on every target configuration of this build: portable
# alone and each target first (python/etch/e2e.py). A new target in
# targets/CMakeLists.txt is a new configuration here, with no test edits.
e2e_configs = ["portable"] + [t + ",portable" for t in config.etch_targets.split(";") if t]
# ETCH_E2E_TARGETS=a,b keeps the configurations whose first target is listed
# (scripts/test.sh's ISA-capped stage runs the CPU targets only).
if os.environ.get("ETCH_E2E_TARGETS"):
    wanted = os.environ["ETCH_E2E_TARGETS"].split(",")
    e2e_configs = [c for c in e2e_configs if c.split(",")[0] in wanted]
# Tests of one target say `REQUIRES: target-<name>` (a target is built on
# the hosts its CMake line allows).
for target in config.etch_targets.split(";"):
    if target:
        config.available_features.add("target-" + target)
config.substitutions.append(
    ("%e2e", "/usr/bin/python3 %s/python/etch/e2e.py --bin %s --configs %s"
     % (config.etch_source_dir, config.etch_tools_dir, "/".join(e2e_configs))))
# Decoders the same way: et-llm's tokens and logits on every configuration.
config.substitutions.append(
    ("%llm-check", "/usr/bin/python3 %s/python/etch/llm_check.py --bin %s --configs %s"
     % (config.etch_source_dir, config.etch_tools_dir, "/".join(e2e_configs))))

# Real torch 2.x (Debian chroots made by scripts/setup-torch.sh): tests that
# need it say `REQUIRES: torch2`. They fail when the chroots are missing,
# unless the user opts out with ETCH_SKIP_TORCH=1, and then lit's summary
# counts them as unsupported.
if os.environ.get("ETCH_SKIP_TORCH") != "1":
    config.available_features.add("torch2")
# Sanitizer builds run everything 3-10x slower: the few tests that only
# measure (hundreds of runs of a full model) skip there; their code paths
# have smaller tests that do run.
if config.etch_sanitize.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("sanitizer")
# ETCH_CPU_ISA (etch's kernels, XNNPACK and oneDNN) and DNNL_MAX_CPU_ISA
# (oneDNN alone) run the suite as on a lesser x86 CPU.
for name in ["ETCH_CHROOT_DIR", "ETCH_SKIP_TORCH", "DNNL_MAX_CPU_ISA", "ETCH_CPU_ISA"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.substitutions.append(
    ("%torch-corpus", "%s/test/torch-corpus.sh" % config.etch_source_dir))
