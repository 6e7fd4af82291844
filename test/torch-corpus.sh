#!/usr/bin/env bash
# Makes (once) the corpus files of MODEL with SUITE's torch:
#   torch-corpus.sh SUITE MODEL OUT_DIR [SCRIPT [ARGS...]]
# SCRIPT (default python/etch/torch_corpus.py) writes them to OUT_DIR/SUITE/
# and names them; a stamp records the hash of the script and its helpers,
# so a changed script exports again. Runs serialised per suite (lit runs
# tests in parallel).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=$1 model=$2 out=$3/$1 script=${4:-python/etch/torch_corpus.py}
shift $(($# < 4 ? $# : 4))
mkdir -p "$out"
# The script and the etch modules it imports (reinit.py by those).
helpers=$(sed -n 's/^from etch\.\([a-z_]*\) import.*/python\/etch\/\1.py/p' \
  "$root/$script" | sort -u)
hash=$(cd "$root" && cat "$script" python/etch/reinit.py $helpers |
  sha256sum | cut -c1-16)
stamp="$out/$model.$hash.done"
[ -f "$stamp" ] && exit 0
exec 9>"$out/.lock"
flock 9
[ -f "$stamp" ] && exit 0
"$root/scripts/torch-run.sh" "$suite" "$out" "$script" \
  --models "$model" "$@" >"$out/$model.log" 2>&1 || {
  echo "torch-corpus: exporting $model with the $suite chroot failed:" >&2
  tail -20 "$out/$model.log" >&2
  exit 1
}
touch "$stamp"
