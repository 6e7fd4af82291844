#!/usr/bin/env python3
"""Fails when a micro-kernel's loops touch the stack.

    check-register-spills.py LIBRARY FUNCTION_PATTERN [FUNCTION_PATTERN ...]

Disassembles LIBRARY (objdump -d, demangled), and in every function whose
name matches a pattern finds the innermost loops (a jump back to an earlier
address that lies on a cycle of the control flow, with no other loop inside
it) and looks for a vector instruction with a memory operand based on %rsp
or %rbp inside them. A compiler that runs out of vector registers keeps a
sum on the stack and reloads and stores it at every step (Debian's XNNPACK
AVX2 f32 kernels do): the loop then runs at store-forwarding latency, about
half the FMA throughput. (A loop bound compared from the stack, when the
general registers run out, is one load and no such chain.) Each pattern must match at least one function.
"""
import re
import subprocess
import sys

INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.*)>:$")
JUMP = re.compile(r"^j\w+$")
STACK = re.compile(r"\(%(rsp|rbp)[,)]")


def functions(library):
    text = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", library],
                          check=True, stdout=subprocess.PIPE, text=True).stdout
    name, body = None, []
    for line in text.splitlines():
        match = FUNCTION.match(line)
        if match:
            if name:
                yield name, body
            name, body = match.group(1), []
            continue
        match = INSTRUCTION.match(line)
        if name and match:
            body.append((int(match.group(1), 16), match.group(2), match.group(3)))
    if name:
        yield name, body


def cyclic_addresses(body):
    """The addresses of the instructions that lie on a cycle of the
    function's control flow (basic blocks in a strongly connected component
    with an edge inside)."""
    addresses = [address for address, _, _ in body]
    starts = {addresses[0]} if addresses else set()
    targets = {}
    for index, (address, mnemonic, operands) in enumerate(body):
        if JUMP.match(mnemonic) or mnemonic.startswith("ret"):
            if index + 1 < len(body):
                starts.add(body[index + 1][0])
            try:
                target = int(operands.split()[0], 16)
            except (ValueError, IndexError):
                continue
            if target in addresses:
                starts.add(target)
                targets[address] = target
    blocks, block_of = [], {}
    for address, mnemonic, operands in body:
        if address in starts or not blocks:
            blocks.append([])
        blocks[-1].append((address, mnemonic, operands))
        block_of[address] = len(blocks) - 1
    edges = [set() for _ in blocks]
    for b, block in enumerate(blocks):
        address, mnemonic, _ = block[-1]
        if address in targets:
            edges[b].add(block_of[targets[address]])
        falls_through = not (mnemonic in ("jmp", "jmpq") or mnemonic.startswith("ret"))
        if falls_through and b + 1 < len(blocks):
            edges[b].add(b + 1)
    # Tarjan's strongly connected components, iteratively.
    index, low, on_stack, stack, order, cyclic = {}, {}, set(), [], [0], set()
    for root in range(len(blocks)):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = order[0]
        order[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = order[0]
                    order[0] += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(edges[succ])))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    cyclic.update(component)
    return {address for b in cyclic for address, _, _ in blocks[b]}


def back_edges(body):
    """(target, jump address) of every jump to an earlier address."""
    edges = []
    for address, mnemonic, operands in body:
        if not JUMP.match(mnemonic):
            continue
        try:
            target = int(operands.split()[0], 16)
        except (ValueError, IndexError):
            continue
        if target < address:
            edges.append((target, address))
    return edges


def stack_accesses_in_loops(body):
    """Every vector stack operand in an innermost loop: the instructions from a
    back edge's target to its jump, where that jump is on a cycle and no
    other back edge lies inside (outer loops may keep loop counters on the
    stack; the inner loop is where the time goes)."""
    on_cycle = cyclic_addresses(body)
    edges = [(t, a) for t, a in back_edges(body) if t in on_cycle and a in on_cycle]
    found = []
    for target, jump in edges:
        if any(target <= t and a < jump for t, a in edges if (t, a) != (target, jump)):
            continue  # an outer loop
        found += [f"{address:#x}: {mnemonic} {operands}"
                  for address, mnemonic, operands in body
                  if target <= address <= jump and mnemonic.startswith("v")
                  and STACK.search(operands)]
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    library, patterns = sys.argv[1], sys.argv[2:]
    matched = {pattern: 0 for pattern in patterns}
    failures = 0
    for name, body in functions(library):
        for pattern in patterns:
            if not re.search(pattern, name):
                continue
            matched[pattern] += 1
            spills = stack_accesses_in_loops(body)
            for instruction in spills:
                print(f"FAIL {name}: an inner loop touches the stack: {instruction}")
            failures += bool(spills)
            if not spills:
                print(f"ok {name}: no stack access in its inner loops")
    for pattern, count in matched.items():
        if count == 0:
            print(f"FAIL no function in {library} matches '{pattern}'")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
