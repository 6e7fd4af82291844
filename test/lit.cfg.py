# lit configuration for etch: every .mlir (and .test) file under test/ runs
# with etch's tools and LLVM 19's FileCheck/not/count/split-file on PATH.
import os

import lit.formats

config.name = "etch"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "plugin"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.etch_binary_dir, "test")

path = os.pathsep.join(
    [config.etch_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])]
)
config.environment["PATH"] = path
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%etch_src", config.etch_source_dir))

# Debian's Python with torch 1.13 / torchvision / onnx / numpy, for test
# inputs made at test time; and the build-tree cache for generated corpora.
config.substitutions.append(("%refpy", "/usr/bin/python3"))
config.substitutions.append(("%corpus", os.path.join(config.etch_binary_dir, "test", "corpus")))
config.substitutions.append(("%etch_plugin", os.path.join(config.etch_binary_dir, "lib", "etch-test-plugin.so")))
