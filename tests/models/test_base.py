"""The backend protocol (plates/models/base.py) and the registry (plates/models/__init__.py)."""

from __future__ import annotations

import sys

import pytest
from PIL import Image

import plates.models as models
from plates.models import (
    BACKENDS,
    Backend,
    Query,
    Reply,
    Turn,
    backend_class,
    make_backend,
    registered_backend,
)


def _image() -> Image.Image:
    return Image.new("RGB", (8, 8), (10, 200, 30))  # sRGB 0-255


def test_turn_and_query_are_frozen_and_validated():
    shot = Turn("user", "What number?", [_image()])
    assert isinstance(shot.images, tuple)
    query = Query([shot, Turn("assistant", "12"), Turn("user", "And now?", (_image(),))], kind="yesno")
    assert isinstance(query.turns, tuple) and len(query.images) == 2
    with pytest.raises(AttributeError):
        query.kind = "open"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Turn("system", "x"), "role 'system' is not allowed; allowed: user, assistant"),
        (lambda: Turn("user", "x", ("not an image",)), "must be PIL images"),
        (lambda: Query(()), "at least one turn"),
        (lambda: Query((Turn("user", "x"),), kind="essay"), "kind 'essay' is not allowed; allowed: open, yesno, mc"),
        (lambda: Query((Turn("user", "x"), Turn("assistant", "y"))), "last turn"),
        (lambda: Query((Turn("user", "x"),), max_tokens=0), "max_tokens"),
        (lambda: Query((Turn("user", "x"),), temperature=5.0), "temperature"),
        (lambda: Query(("x",)), "Turn values"),
    ],
)
def test_bad_values_raise_value_errors_that_say_what_is_allowed(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_reply_ok_means_answer_text():
    assert Reply("12").ok
    assert not Reply(None, error="HTTP 500").ok
    assert not Reply(None, unsupported=True).ok


def test_registry_names_and_unknown_kind():
    assert set(BACKENDS) == {"openai", "hf", "baseline", "reference-pixels", "python"}
    with pytest.raises(ValueError, match="unknown backend 'gpt'; allowed: openai, hf, baseline, reference-pixels"):
        make_backend("gpt")


def test_a_registered_module_that_is_absent_gives_a_clear_error():
    with registered_backend("ghost", "plates.models.no_such_backend:Ghost"), \
            pytest.raises(ValueError, match="no_such_backend is not present"):
        make_backend("ghost")
    assert "ghost" not in BACKENDS


def test_the_registry_is_read_only_and_a_backend_is_registered_for_a_while():
    with pytest.raises(TypeError):
        BACKENDS["ghost"] = "x:Y"  # type: ignore[index]
    hf = BACKENDS["hf"]
    with pytest.raises(RuntimeError), registered_backend("hf", "plates.models.baseline:BaselineBackend"):
        assert backend_class("hf").__name__ == "BaselineBackend"
        raise RuntimeError  # the registry is restored however the block ends
    assert BACKENDS["hf"] == hf and backend_class("hf").__name__ == "HFBackend"
    with pytest.raises(ValueError, match="backend target 'nocolon' is not valid; allowed: 'module:ClassName'"), \
            registered_backend("ghost", "nocolon"):
        pass


def test_a_missing_sdk_names_the_extra(monkeypatch, tmp_path):
    (tmp_path / "plates_fake_backend.py").write_text("import plates_no_such_sdk\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with registered_backend("hf", "plates_fake_backend:Fake", extra="hf"), \
            pytest.raises(ImportError, match=r"plates_no_such_sdk.*pip install -e \"\.\[hf\]\" from the root of"):
        make_backend("hf", model_id_or_path="x")
    sys.modules.pop("plates_fake_backend", None)


def test_importing_the_package_imports_no_sdk():
    assert models.BACKENDS  # the package is imported; the heavy SDKs are not required to be
    code = "import sys, plates.models; print('torch' in sys.modules, 'transformers' in sys.modules)"
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_ask_one_and_context_manager():
    class Echo(Backend):
        kind, model = "echo", "echo-1"
        closed = 0

        def ask(self, queries):
            for i, q in enumerate(queries):
                yield i, Reply(q.turns[-1].text)

        def close(self):
            Echo.closed += 1

    with Echo() as backend:
        assert backend.ask_one(Query((Turn("user", "hi"),))).text == "hi"
        assert repr(backend) == "Echo(kind='echo', model='echo-1')"
    assert Echo.closed == 1
