#!/usr/bin/env bash
# Seed corpora for the fuzz targets, from the suite's own files:
#   onnx/       docs/examples/small_cnn.onnx and every make_onnx.py case
#   pt2/        every make_pt2.py input in both .pt2 layouts, as entry lists
#   program/    those models, the XNNPACK tests' Edge MLIR inputs (one has
#               dynamic dims) and test/fuzz/Inputs (state, weight-only ops,
#               metadata) compiled for portable and for each CPU target
#   blob-<t>/   each compiled delegate with its border tensors
#   tokenizer/  test/runtime/llm/tokenizer/Inputs and the suite's trained
#               tokenizers when the corpus has them
#   chat-template/  the chat templates of python/etch/chat_template_corpus.py
#   openai-request/ the request bodies of test/tools/et-llm-serve.test
# usage: make-seeds.sh BUILD_DIR OUT_DIR   (tools from BUILD_DIR/bin)
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$1/bin
out=$2
refpy=/usr/bin/python3
rm -rf "$out"
mkdir -p "$out"/{onnx,pt2,program,tokenizer,chat-template,openai-request} "$out/models"
"$refpy" - "$src/python/etch/chat_template_corpus.py" "$out/chat-template" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
for node in tree.body:
    if isinstance(node, ast.Assign) and node.targets[0].id == "TEMPLATES":
        for name, text in ast.literal_eval(node.value).items():
            open("%s/%s.jinja" % (sys.argv[2], name), "w").write(text)
PY

# Every JSON body the serve test posts (its split files, and -d arguments).
"$refpy" - "$src/test/tools/et-llm-serve.test" "$out/openai-request" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
bodies = re.findall(r"^#--- \w+\.json\n(.*?)(?=^#---)", text, re.S | re.M)
bodies += re.findall(r"'(\{.*\})'$", text, re.M)
for index, body in enumerate(bodies):
    open("%s/%d.json" % (sys.argv[2], index), "w").write(body)
PY

cp "$src"/test/runtime/llm/tokenizer/Inputs/* "$out/tokenizer/"
for file in "$1"/test/corpus/tokenizers/sid/tokenizers/*/tokenizer.*; do
  [ -f "$file" ] && cp "$file" "$out/tokenizer/$(basename "$(dirname "$file")")-${file##*/}"
done

cp "$src/docs/examples/small_cnn.onnx" "$out/onnx/"
for case in $("$refpy" -c "import sys; sys.path.insert(0, '$src/test/Import/Onnx'); \
    import make_onnx; print(' '.join(make_onnx.CASES))"); do
  "$refpy" "$src/test/Import/Onnx/make_onnx.py" "$case" "$out/onnx/$case.onnx" 2>/dev/null || true
done
for json in "$src"/test/Import/Torch/Inputs/*.json; do
  name=$(basename "$json" .json)
  for layout in flat archive; do
    pt2="$out/models/$name-$layout.pt2"
    "$refpy" "$src/test/Import/Torch/make_pt2.py" "$json" "$pt2" --layout "$layout" >/dev/null 2>&1 || continue
    "$bin/etch-fuzz-seeds" entries "$pt2" "$out/pt2/$name-$layout"
  done
done
# Every target built (one blob fuzzer each), the opt-in ones included.
targets=$(for fuzzer in "$bin"/etch-fuzz-blob-*; do echo "${fuzzer##*/etch-fuzz-blob-}"; done)
for model in "$out"/onnx/*.onnx "$out"/models/*.pt2 "$src"/test/Target/XNNPACK/Inputs/*.mlir \
    "$src"/test/fuzz/Inputs/*.mlir; do
  name=$(basename "$model")
  "$bin/et-compile" "$model" --targets=portable -o "$out/program/$name-portable.etp" >/dev/null 2>&1 || true
  # Each target first, so that every target's blobs hold what it claims.
  for target in $targets; do
    program="$out/program/$name-$target.etp"
    if "$bin/et-compile" "$model" --targets="$target,portable" -o "$program" >/dev/null 2>&1; then
      "$bin/etch-fuzz-seeds" blobs "$program" "$out" 2>/dev/null || true
    fi
  done
done
rm -rf "$out/models"
for dir in "$out"/*/; do
  echo "$(basename "$dir"): $(ls "$dir" | wc -l) seeds"
done
