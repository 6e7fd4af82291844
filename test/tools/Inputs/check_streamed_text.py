"""Checks that et-llm's streamed text is the decoding of its tokens line.

  check_streamed_text.py ET_LLM_OUTPUT DETOKENIZED_JSON

ET_LLM_OUTPUT is what et-llm --tokenizer printed (the text, a newline, then
"tokens: ..." and the timing lines); DETOKENIZED_JSON is `et-llm detokenize
--json` of those tokens. Prints "streamed text matches (N bytes)".
"""
import json
import sys

output = open(sys.argv[1], encoding="utf-8").read()
text, _, rest = output.rpartition("\ntokens: ")
want = json.loads(open(sys.argv[2], encoding="utf-8").readline())
if not rest or text != want:
    sys.exit("streamed %r\nexpected %r" % (text, want))
print("streamed text matches (%d bytes)" % len(text.encode("utf-8")))
