"""The etch wheel from Python (pytest): export -> compile -> run -> compare
for a CNN, a transformer layer and a two-input/two-output module, numpy and
torch inputs, every error path, int8, an LLM and 1,000 runs with flat memory.

Runs with the wheel installed in a venv (test/python/wheel-*.test). Without
a torch that has torch.export (the host's Debian python: numpy only), only
the tests that need no torch run. ETCH_TEST_DATA names a folder holding
small_cnn.onnx and, when an LLM is to be checked, llm.etp with
llm_prompt_ids.txt and llm_expected_ids.txt (what et-llm generates).
"""
import os

import numpy as np
import pytest

import etch

DATA = os.environ.get("ETCH_TEST_DATA", "")
try:
    import torch
    HAS_EXPORT = hasattr(torch, "export") and hasattr(torch.export, "save")
except ImportError:
    torch, HAS_EXPORT = None, False
needs_torch = pytest.mark.skipif(not HAS_EXPORT, reason="needs torch with torch.export")


def rel_l2(actual, expected):
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    return np.linalg.norm(actual - expected) / max(np.linalg.norm(expected), 1e-30)


def test_package_comes_from_the_wheel():
    assert isinstance(etch.__version__, str) and etch.__version__.count(".") == 2
    assert issubclass(etch.Error, Exception)
    assert os.path.isdir(os.path.join(os.path.dirname(etch.__file__), "_native"))


@pytest.fixture(scope="module")
def cnn_program():
    return etch.compile(os.path.join(DATA, "small_cnn.onnx"), targets=["xnnpack", "portable"])


def test_onnx_file_compiles_and_runs(cnn_program, tmp_path):
    assert "partition summary" in cnn_program.summary
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
    module = etch.load(cnn_program.buffer, threads=1)
    assert module.method_names == ["forward"]
    first = module.forward(x)
    path = tmp_path / "cnn.etp"
    cnn_program.save(path)
    again = etch.load(str(path)).run("forward", x)
    assert len(first) == 1 and first[0].shape == (1, 10) and first[0].dtype == np.float32
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_allclose(first[0].sum(), 1.0, rtol=1e-5)  # softmax


def test_external_weights(cnn_program, tmp_path):
    weights = tmp_path / "cnn.etw"
    program = etch.compile(os.path.join(DATA, "small_cnn.onnx"), targets=["xnnpack", "portable"],
                           external_weights=weights)
    assert program.weights_path == str(weights) and weights.exists()
    assert len(program.buffer) < len(cnn_program.buffer) / 4
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    expected = etch.load(cnn_program).forward(x)[0]
    np.testing.assert_array_equal(etch.load(program).forward(x)[0], expected)
    path = tmp_path / "cnn.etp"
    program.save(path)  # beside its weights: found by name
    np.testing.assert_array_equal(etch.load(str(path)).forward(x)[0], expected)
    np.testing.assert_array_equal(
        etch.load(program.buffer, weights=weights).forward(x)[0], expected)
    expect_error(lambda: etch.load(program.buffer), "keeps its weights in 'cnn.etw'")
    other = tmp_path / "other.etw"
    etch.compile(os.path.join(DATA, "small_cnn.onnx"), quantize="int8-weight",
                 targets=["portable"], external_weights=other)
    expect_error(lambda: etch.load(str(path), weights=other), "WeightsMismatch",
                 "compiled against 'cnn.etw'")


def test_several_methods(cnn_program):
    path = os.path.join(DATA, "small_cnn.onnx")
    program = etch.compile({"classify": path, "again": path}, targets=["xnnpack", "portable"])
    assert len(program.buffer) < 1.1 * len(cnn_program.buffer)
    module = etch.load(program)
    assert module.method_names == ["classify", "again"]
    x = np.random.default_rng(2).standard_normal((1, 3, 32, 32)).astype(np.float32)
    expected = etch.load(cnn_program).forward(x)[0]
    np.testing.assert_array_equal(module.run("again", x)[0], expected)
    expect_error(lambda: etch.compile({"1st": path}), "a method name is letters")


def expect_error(function, *fragments):
    with pytest.raises(etch.Error) as caught:
        function()
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)


def test_error_paths(cnn_program, tmp_path):
    module = etch.load(cnn_program.buffer)
    x = np.zeros((1, 3, 32, 32), np.float32)
    expect_error(lambda: module.forward(x.astype(np.float64)),
                 "input 0 is float64, the method expects float32")
    expect_error(lambda: module.forward(x[..., :31]), "dim 3 is 31, the method expects 32")
    expect_error(lambda: module.forward(x[0]), "has 3 dims, the method expects 4")
    expect_error(lambda: module.forward(), "takes 1 inputs, 0 given")
    expect_error(lambda: module.forward(x, x), "takes 1 inputs, 2 given")
    expect_error(lambda: module.forward(x.astype(np.complex64)), "complex64 has no etch dtype")
    expect_error(lambda: module.run("decode", x), "no method 'decode'")
    missing = str(tmp_path / "missing.etp")
    expect_error(lambda: etch.load(missing), "missing.etp", "cannot open file")
    expect_error(lambda: etch.load(b"not a program at all, not at all"), "cannot load program")
    expect_error(lambda: etch.load(3), "takes a path or the program's bytes")
    expect_error(lambda: etch.load(cnn_program.buffer, threads=0), "threads")
    garbage = tmp_path / "garbage.pt2"
    garbage.write_bytes(b"PK\x03\x04 this is no zip archive")
    expect_error(lambda: etch.compile(str(garbage)), "garbage.pt2")
    expect_error(lambda: etch.compile(str(tmp_path / "nope.onnx")), "nope.onnx")
    expect_error(lambda: etch.compile(42), "model is of type int")
    expect_error(lambda: etch.compile(os.path.join(DATA, "small_cnn.onnx"), targets=["nope"]),
                 "nope")
    expect_error(lambda: etch.compile(os.path.join(DATA, "small_cnn.onnx"), quantize="int3"),
                 "int3")
    module.close()
    expect_error(lambda: module.forward(x), "closed")


def test_damaged_programs_are_errors_not_crashes(cnn_program):
    buffer = cnn_program.buffer
    x = np.zeros((1, 3, 32, 32), np.float32)
    for end in (0, 16, 31, 32, len(buffer) // 2, len(buffer) - 1):
        expect_error(lambda: etch.load(buffer[:end]).forward(x), "cannot load")
    header = bytearray(buffer)
    header[0:4] = b"XXXX"
    expect_error(lambda: etch.load(bytes(header)), "cannot load program")
    rng = np.random.default_rng(7)
    for _ in range(200):  # any byte: a clean load, or an etch.Error
        damaged = bytearray(buffer)
        for position in rng.integers(0, len(buffer), size=4):
            damaged[position] ^= int(rng.integers(1, 256))
        try:
            etch.load(bytes(damaged)).forward(x)
        except etch.Error:
            pass


def test_memory_stays_flat_over_1000_runs(cnn_program):
    module = etch.load(cnn_program.buffer, threads=1)
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype(np.float32)

    def resident_bytes():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    for _ in range(100):
        module.forward(x)
    before = resident_bytes()
    for _ in range(1000):
        module.forward(x)
    growth = resident_bytes() - before
    assert growth < 1 << 20, f"resident memory grew {growth} bytes over 1,000 runs"


# --- torch -------------------------------------------------------------------
class SmallCnn(torch.nn.Module if torch else object):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(16, 32, 3, stride=2), torch.nn.ReLU6(),
            torch.nn.AdaptiveAvgPool2d(1))
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


class TwoInTwoOut(torch.nn.Module if torch else object):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(50, 8)
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, tokens, scale):
        hidden = self.linear(self.embedding(tokens)) * scale
        return hidden.relu(), hidden.sum(dim=-1)


def made(module_type):
    torch.manual_seed(0)
    model = module_type().eval()
    if module_type is SmallCnn:
        with torch.no_grad():  # batch norm statistics that matter
            model.features[1].running_mean.uniform_(-0.5, 0.5)
            model.features[1].running_var.uniform_(0.5, 2.0)
    return model


@needs_torch
@pytest.mark.parametrize("form", ["module", "exported", "pt2", "core_aten"])
def test_cnn_every_model_form(form, tmp_path):
    model, x = made(SmallCnn), torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    if form == "module":
        program = etch.compile(model, (x,))
    else:
        exported = torch.export.export(model, (x,))
        if form == "core_aten":
            exported = exported.run_decompositions()
        if form == "pt2":
            torch.export.save(exported, str(tmp_path / "cnn.pt2"))
            exported = str(tmp_path / "cnn.pt2")
        program = etch.compile(exported)
    module = etch.load(program.buffer)
    expected = model(x).detach()
    out_torch = module.forward(x)
    out_numpy = module.forward(x.numpy())
    assert isinstance(out_torch[0], torch.Tensor) and isinstance(out_numpy[0], np.ndarray)
    assert rel_l2(out_torch[0].numpy(), expected.numpy()) < 1e-5
    np.testing.assert_array_equal(out_torch[0].numpy(), out_numpy[0])


@needs_torch
def test_transformer_layer():
    torch.manual_seed(0)
    model = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True).eval()
    x = torch.randn(2, 7, 32)
    program = etch.compile(model, (x,), targets=["xnnpack", "portable"])
    with torch.no_grad():
        expected = model(x)
    actual = etch.load(program).forward(x)[0]
    assert actual.shape == expected.shape
    assert rel_l2(actual.numpy(), expected.numpy()) < 1e-5


@needs_torch
def test_two_inputs_two_outputs():
    model = made(TwoInTwoOut)
    tokens, scale = torch.tensor([[1, 7, 49], [0, 3, 3]]), torch.rand(2, 3, 1)
    module = etch.load(etch.compile(model, (tokens, scale)))
    relu, total = module.forward(tokens, scale)
    expected_relu, expected_total = model(tokens, scale)
    assert rel_l2(relu.numpy(), expected_relu.detach().numpy()) < 1e-6
    assert rel_l2(total.numpy(), expected_total.detach().numpy()) < 1e-6
    expect_error(lambda: module.forward(tokens.int(), scale), "int32", "int64")
    expect_error(lambda: module.forward(tokens), "takes 2 inputs, 1 given")
    expect_error(lambda: module.forward(tokens.to(torch.bfloat16), scale), "bfloat16")
    expect_error(lambda: etch.compile(model), "needs example_inputs")
    expect_error(lambda: etch.compile(model, (scale, tokens)), "torch.export.export failed")


@needs_torch
def test_int8_with_calibration():
    model = made(SmallCnn)
    generator = torch.Generator().manual_seed(3)
    samples = [torch.randn(1, 3, 32, 32, generator=generator) for _ in range(8)]
    program = etch.compile(model, (samples[0],), quantize="int8", calibration_data=samples)
    float_module = etch.load(etch.compile(model, (samples[0],)))
    module = etch.load(program)
    for x in samples[:2]:
        expected = model(x).detach().numpy()
        error = rel_l2(module.forward(x)[0].numpy(), expected)
        assert 1e-6 < error < 0.1  # quantized: near eager, not the float program
        assert rel_l2(float_module.forward(x)[0].numpy(), expected) < 1e-5
    expect_error(lambda: etch.compile(model, (samples[0],), quantize="int8",
                                      calibration_data=[]), "no samples")


@pytest.mark.skipif(not os.path.exists(os.path.join(DATA, "llm.etp")),
                    reason="no LLM program given")
def test_llm_generate_matches_et_llm():
    program = os.path.join(DATA, "llm.etp")
    prompt = [int(t) for t in open(os.path.join(DATA, "llm_prompt_ids.txt")).read().split()]
    expected = [int(t) for t in open(os.path.join(DATA, "llm_expected_ids.txt")).read().split()]
    ids = etch.llm.generate(program, prompt_ids=prompt, max_new_tokens=len(expected),
                            ignore_eos=True)
    assert ids == expected
    with open(program, "rb") as file:
        assert etch.llm.generate(file.read(), prompt_ids=prompt, max_new_tokens=4,
                                 ignore_eos=True) == expected[:4]
    text = etch.llm.generate(program, "Hello", max_new_tokens=8, ignore_eos=True)
    assert isinstance(text, str) and text
    expect_error(lambda: etch.llm.generate(program, prompt_ids=[10 ** 9]), "vocabulary")
    expect_error(lambda: etch.llm.generate(program), "give prompt")
    expect_error(lambda: etch.llm.generate(program, "x", colour=3), "unknown option")


# --- etch.inspect ------------------------------------------------------------
class InPlaceCnn(torch.nn.Module if torch else object):
    """Batch norm folded into the convolution, in-place activations (their
    producers' values must be kept before they are overwritten), a tuple op,
    a type promotion the importer adds inside a node, a node whose outputs
    are computed by separate ops (chunk)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        y = torch.nn.functional.relu(self.norm(self.conv(x)), inplace=True)
        y, indices = torch.nn.functional.max_pool2d(y, 2, return_indices=True)
        y = torch.nn.functional.hardswish(y, inplace=True)
        y = y * (indices % 2)  # int64 promoted to float inside the mul node
        y = torch.cat(y.chunk(2, dim=1)[::-1], 1)  # a node with two outputs
        return self.head(y.flatten(1)), indices


@needs_torch
@pytest.mark.parametrize("form", ["training", "core_aten"])
def test_inspect_aligns_every_value_with_torch(form):
    torch.manual_seed(0)
    model = InPlaceCnn().eval()
    with torch.no_grad():
        model.norm.running_mean.uniform_(-0.5, 0.5)
        model.norm.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(2))
    exported = torch.export.export(model, (x,))
    if form == "core_aten":
        exported = exported.run_decompositions()
    report = etch.inspect(exported, (x,), targets=["portable"])
    assert isinstance(report, etch.Report)
    ops = [row["op"] for row in report.rows]
    assert ops[0] == "edge.convolution" and "+" in report.rows[0]["node"], str(report)
    assert "edge.relu" in ops and len(ops) >= 6, str(report)
    assert any(row["dtype"] == "int64" for row in report.rows), str(report)  # indices
    for row in report.rows:
        assert row["rel_l2"] < 1e-5 and row["snr_db"] > 90, str(report)
        assert row["torch_fp32_error"] is not None and row["torch_fp32_error"] < 1e-5
        assert row["source"].endswith(".py:" + row["source"].split(":")[-1])
    assert report.first_divergence(1e-4) is None
    assert "rel_l2" in str(report) and "edge.convolution" in str(report)

    # int8: the values part from torch's float ones from the first
    # quantized op on, and first_divergence names it.
    quantized = etch.inspect(exported, (x,), targets=["portable"], quantize="int8",
                             calibration_data=[x])
    first = quantized.first_divergence(1e-4)
    assert first is not None and first["instruction"] <= 2, str(quantized)


@needs_torch
def test_inspect_names_the_delegate_outputs():
    torch.manual_seed(0)
    model = InPlaceCnn().eval()
    x = torch.randn(1, 3, 8, 8)
    report = etch.inspect(model, (x,), targets=["xnnpack", "portable"])
    delegated = [row for row in report.rows if row["target"] == "xnnpack"]
    assert delegated and all(row["rel_l2"] < 1e-5 for row in delegated), str(report)
    exported = torch.export.export(model, (x,))
    expect_error(lambda: etch.inspect(exported, (x, x)), "takes 1 inputs, 2 given")
    expect_error(lambda: etch.inspect(model, (x, x)), "torch.export.export failed")


@pytest.mark.skipif(not HAS_EXPORT, reason="needs torch with torch.export")
def test_inspect_onnx_against_onnxruntime():
    pytest.importorskip("onnxruntime")
    x = np.random.default_rng(4).standard_normal((1, 3, 32, 32)).astype(np.float32)
    report = etch.inspect(os.path.join(DATA, "small_cnn.onnx"), (x,), targets=["portable"])
    assert len(report.rows) >= 8, str(report)
    assert all(row["node"].startswith("/") for row in report.rows), str(report)
    assert all(row["rel_l2"] < 1e-5 for row in report.rows), str(report)


@needs_torch
def test_bundled_cases_verify():
    model = made(SmallCnn)
    generator = torch.Generator().manual_seed(5)
    xs = [torch.randn(1, 3, 32, 32, generator=generator) for _ in range(2)]
    with torch.no_grad():
        cases = [(x, model(x)) for x in xs] + [((xs[0],), (model(xs[0]) + 1,))]
    program = etch.compile(model, (xs[0],), bundle=cases)
    results = program.verify()
    assert [r["passed"] for r in results] == [True, True, False], results
    assert results[0]["case"] == "case0000" and results[0]["method"] == "forward"
    assert results[0]["rel_l2"] < 1e-5 and results[2]["rel_l2"] > 1e-2
    assert all(r["passed"] for r in program.verify(atol=2.0))
    expect_error(lambda: etch.compile(model, (xs[0],), bundle=[(xs[0][..., 1:], model(xs[0]))]),
                 "bundled case 'case0000': input 0", "the method takes tensor<1x3x32x32xf32>")
    expect_error(lambda: etch.compile(model, (xs[0],), bundle=[xs[0]]), "a pair")
    expect_error(lambda: etch.compile(model, (xs[0],)).verify(), "no bundled cases")
