"""The experiment spec: TOML parsing, validation messages that name the field, the deterministic run id."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from plates.runs import experiment
from plates.runs.experiment import ConditionSpec, load_experiment, parse_experiment, quick_experiment
from tests.support import ROOT

EXAMPLES = ROOT / "examples"


def _data(**changes):
    data = {
        "dataset": {"source": "colorblindnesseval", "limit": 4},
        "models": [{"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1", "concurrency": 2}],
        "prompts": ["cbe-open"],
        "out": "somewhere",
    }
    data.update(changes)
    return data


def test_the_documented_example_parses():
    exp = load_experiment(EXAMPLES / "cbe-smoke.toml")
    assert exp.name == "cbe-smoke" and exp.run_id.startswith("cbe-smoke-")
    assert exp.prompts == ("cbe-open", "cbe-yn-correct", "cbe-yn-incorrect")
    assert [c.grayscale for c in exp.conditions] == [False, True]
    assert exp.models[0].options["api_key_env"] == "OPENAI_API_KEY"
    assert Path(exp.out).is_absolute() or exp.out.startswith(str(EXAMPLES))  # resolved from the file's folder


def test_conditions_are_crossed_and_normalised():
    exp = parse_experiment(_data(conditions={
        "sizes": [128, 256], "grayscale": [False, True], "hue_shifts": [0, 90],
        "cvd": ["none", {"view": "deutan", "severity": 0.5}], "variants": ["standard", "clear"]}))
    assert len(exp.conditions) == 2 * 2 * 2 * 2 * 2
    assert ConditionSpec(128, False, 0.0, "none", 0.0, "standard") in exp.conditions
    assert ConditionSpec(256, True, 90.0, "deutan", 0.5, "clear") in exp.conditions


def test_default_condition_is_the_plain_plate():
    exp = parse_experiment(_data())
    assert exp.conditions == (ConditionSpec(),) and exp.shots == (0,) and exp.seed == 0 and exp.limit == 4


def test_run_id_ignores_operational_settings_only():
    base = parse_experiment(_data())
    operational = parse_experiment(_data(
        out="elsewhere", dataset={"source": "colorblindnesseval", "limit": 99},
        models=[{"backend": "openai", "model": "m", "base_url": "http://other:2/v1", "concurrency": 16,
                 "timeout": 5, "api_key_env": "OTHER_KEY"}]))
    assert base.run_id == operational.run_id
    for changed in (_data(seed=1), _data(shots=[1]), _data(prompts=["cbe-yn-correct"]),
                    _data(conditions={"grayscale": [True]}),
                    _data(models=[{"backend": "openai", "model": "m2"}]),
                    _data(models=[{"backend": "openai", "model": "m", "temperature": 0.7}])):
        assert parse_experiment(changed).run_id != base.run_id


def test_quick_run_equals_the_same_toml():
    quick = quick_experiment(dataset="colorblindnesseval", prompt="cbe-open", backend="openai", model="m",
                             out="x", base_url="http://127.0.0.1:1/v1", limit=4, concurrency=2)
    assert quick.run_id == parse_experiment(_data()).run_id


def test_sampling_fields_change_the_run_id_and_apply_to_the_openai_backend_only():
    common = dict(dataset="colorblindnesseval", prompt="cbe-open", model="m", out="x", base_url="http://127.0.0.1:1/v1")
    plain = quick_experiment(backend="openai", **common)
    vllm = quick_experiment(backend="openai", sampling_fields="vllm", **common)
    assert vllm.models[0].options["sampling_fields"] == "vllm" and vllm.run_id != plain.run_id
    with pytest.raises(ValueError, match="sampling_fields applies to the openai backend only"):
        quick_experiment(backend="hf", sampling_fields="vllm", **common)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"models": [{"backend": "openai", "model": "a"}, {"backend": "opneai", "model": "b"}]},
         r"models\[1\]\.backend 'opneai' is not known; allowed: openai, hf, baseline, reference-pixels"),
        ({"models": [{"backend": "openai"}]}, r"models\[0\]\.model"),
        ({"models": []}, r"models: missing"),
        ({"models": [{"backend": "openai", "model": "m", "concurrency": 0}]}, r"models\[0\]\.concurrency"),
        ({"models": [{"backend": "openai", "model": "m", "api_key_env": "sk-live-123 oops"}]},
         r"models\[0\]\.api_key_env: expected the NAME"),
        ({"prompts": ["cbe-opn"]}, r"prompts\[0\] 'cbe-opn' is not known; allowed: cbe-open, "),
        ({"prompts": []}, r"prompts: missing"),
        ({"conditions": {"sizes": [8]}}, r"conditions\.sizes\[0\]=8 is not valid; allowed: an integer in \[16, 4096\] \(px\)"),
        ({"conditions": {"cvd": ["deuteranopia"]}}, r"conditions\.cvd\[0\] 'deuteranopia' is not known; allowed: none"),
        ({"conditions": {"cvd": [{"view": "protan", "severity": 2}]}}, r"conditions\.cvd\[0\]\.severity"),
        ({"conditions": {"grayscale": ["yes"]}}, r"conditions\.grayscale\[0\]"),
        ({"conditions": {"variants": ["blurry"]}}, r"conditions\.variants\[0\] 'blurry' is not known; allowed: standard"),
        ({"conditions": {"size": [128]}}, r"conditions: unknown key\(s\) size; allowed: sizes"),
        ({"shots": [-1]}, r"shots\[0\]"),
        ({"seed": "zero"}, r"seed='zero' is not valid; allowed: an integer >= 0"),
        ({"dataset": {"source": "/no/such/folder"}}, r"dataset\.source: '/no/such/folder' is neither a preset"),
        ({"dataset": {"source": "colorblindnesseval", "limit": 0}}, r"dataset\.limit"),
        ({"colour": "red"}, r"experiment: unknown key\(s\) colour"),
        ({"models": [{"backend": "openai", "model": "m", "concurrncy": 4}]},
         r"models\[0\]: unknown key\(s\) concurrncy for backend 'openai'; allowed: backend, model, .*concurrency"),
        ({"models": [{"backend": "openai", "model": "m", "api_key": "sk-123"}]},
         r"models\[0\]\.api_key: an API key never goes in an experiment file"),
    ],
)
def test_bad_fields_are_named_with_what_is_allowed(changes, message):
    with pytest.raises(ValueError, match=message):
        parse_experiment(_data(**changes))


def test_seeds_are_integers_read_exactly():
    assert parse_experiment(_data(seed=2**63 - 1)).seed == 2**63 - 1
    for bad in (1.7, True, "1"):
        with pytest.raises(ValueError, match=r"^seed=.* is not valid; allowed: an integer >= 0$"):
            parse_experiment(_data(seed=bad))


def test_a_family_folder_names_its_sets_one_level_down(tmp_path):
    """`plates generate --family` writes one set per preset under OUT/<preset>: OUT itself names them."""
    for name in ("rcid-stripe", "rcid-contrast"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.parquet").write_bytes(b"")
    (tmp_path / "notes").mkdir()
    with pytest.raises(ValueError, match=r"holds no set itself but 2 one level down \(as `plates generate "
                                         r"--family` writes them: rcid-contrast, rcid-stripe\); allowed: one of them, "
                                         r"e\.g\. '.*rcid-contrast'"):
        parse_experiment(_data(dataset={"source": str(tmp_path)}))


def test_malformed_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('prompts = ["cbe-open"\n[dataset]\n')
    with pytest.raises(ValueError, match=r"broken\.toml.*not valid TOML"):
        load_experiment(path)
    with pytest.raises(ValueError, match="does not exist"):
        load_experiment(tmp_path / "missing.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\x00\x01\xff\xfe\x89PNG")  # its error named no file (a bare UnicodeDecodeError)
    with pytest.raises(ValueError, match=r"binary\.toml.*not valid TOML: not UTF-8"):
        load_experiment(binary)
    with pytest.raises(ValueError, match=r"'.*' is a folder"):
        load_experiment(tmp_path)


def test_baseline_model_table_needs_no_model_name(tmp_path):
    """The CLI runs the baseline without --model; a [[models]] table for it needed `model` all the same."""
    path = tmp_path / "exp.toml"
    path.write_text('prompts = ["cbe-open"]\n[dataset]\nsource = "colorblindnesseval"\n'
                    '[[models]]\nbackend = "baseline"\n')
    implied = load_experiment(path)
    path.write_text(path.read_text() + 'model = "baseline-cnn"\n')
    named = load_experiment(path)
    assert implied.models[0].model == "baseline-cnn" and implied.run_id == named.run_id
    path.write_text('protocol = "plates"\nprompts = ["cbe-open"]\n[dataset]\nsource = "colorblindnesseval"\n'
                    '[[models]]\nbackend = "baseline"\n')
    assert load_experiment(path).models[0].model == "baseline-cnn"  # a paper protocol fills it the same way
    with pytest.raises(ValueError, match=r"models\[0\]\.model"):  # a backend serving many models still needs it
        parse_experiment(_data(models=[{"backend": "openai"}]))


def test_toml_field_errors_name_the_file_and_field(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text('prompts = ["cbe-open"]\n[dataset]\nsource = "colorblindnesseval"\n'
                    '[[models]]\nbackend = "openai"\nmodel = "a"\n[[models]]\nbackend = "opneai"\nmodel = "b"\n')
    with pytest.raises(ValueError, match=r"exp\.toml: models\[1\]\.backend 'opneai' is not known; allowed: .*did you mean 'openai'"):
        load_experiment(path)


def test_experiment_json_holds_the_key_variable_name_never_a_key(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-secret-value")
    exp = parse_experiment(_data(models=[{"backend": "openai", "model": "m", "api_key_env": "MY_KEY"}]))
    assert "sk-secret-value" not in exp.to_json() and "sk-secret-value" not in repr(exp)
    assert dataclasses.replace(exp, out="y").run_id == exp.run_id


def test_experiment_reads_the_one_declaration_of_each_list():
    """Backend kinds, CVD views, variants and preset names are declared once; the experiment parser
    accepts exactly what the rest of the package does (a new family's variant, a new preset)."""
    from plates.colour import CVD_VIEWS
    from plates.datasets import PRESETS
    from plates.datasets.family_presets import FAMILY_PRESETS
    from plates.models import BACKENDS
    from plates.stimuli import STIMULI

    assert experiment.BACKEND_KINDS == tuple(BACKENDS) and experiment.CVD_VIEWS is CVD_VIEWS
    assert set(experiment.VARIANTS) == {v for f in STIMULI.values() for v in f.variants}
    assert experiment.preset_names() == (*PRESETS, *FAMILY_PRESETS)


def _prompt_file(path, text):
    path.write_text(f'[[prompt]]\nname = "my-open"\nkind = "open"\nlabel_space = "cbe"\ntemplate = "{text}"\n')
    return path


def test_prompt_files_give_a_users_template_and_its_text_is_part_of_the_run_id(tmp_path):
    """A user can add a template of their own — from a TOML experiment and `plates run`, not only
    from Python; and a changed template text must start a new run, never resume the old one's rows."""
    _prompt_file(tmp_path / "mine.toml", "Which number do you see?")
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text('prompts = ["my-open"]\nprompt_files = ["mine.toml"]\nout = "o"\n'
                        '[dataset]\nsource = "colorblindnesseval"\n'
                        '[[models]]\nbackend = "baseline"\nmodel = "baseline-cnn"\n')
    first = load_experiment(exp_file)
    assert first.prompts == ("my-open",) and first.template("my-open").template == "Which number do you see?"
    from plates.tasks.prompts import PROMPTS

    assert "my-open" not in PROMPTS  # the experiment holds it; nothing global changed
    assert load_experiment(exp_file).run_id == first.run_id
    _prompt_file(tmp_path / "mine.toml", "What number is hidden here?")
    assert load_experiment(exp_file).run_id != first.run_id
    with pytest.raises(ValueError, match=r"prompt_files\[0\].*non-empty string"):
        parse_experiment(_data(prompt_files=[3]))
    with pytest.raises(ValueError, match="prompt file .*nope.toml' does not exist"):
        parse_experiment(_data(prompt_files=["nope.toml"]), base_dir=tmp_path)


def test_built_in_prompts_keep_their_run_ids_until_the_pixels_change(monkeypatch):
    """Run ids of runs already on disk must not move (rerunning continues them) unless the pixels do: the
    engine version is part of the identity, so a change of pixels starts a new run."""
    exp = quick_experiment(dataset="colorblindnesseval", prompt="cbe-open", backend="baseline",
                           model="baseline-cnn", out="x", limit=4, size=256)
    assert exp.run_id == "colorblindnesseval-50321868248f"  # engine version 3 (2 gave -187cf582b089)
    monkeypatch.setattr(experiment, "ENGINE_VERSION", 4)
    assert exp.identity()["engine"] == 4 and exp.run_id != "colorblindnesseval-50321868248f"


def test_unknown_model_key_lists_each_allowed_key_once_and_never_api_key():
    with pytest.raises(ValueError, match=r"allowed: backend, model, max_tokens, temperature, view, base_url") as info:
        parse_experiment(_data(models=[{"backend": "openai", "model": "m", "bogus": 1}]))
    allowed = str(info.value).split("allowed: ", 1)[1].split(", ")
    assert len(allowed) == len(set(allowed)) and "api_key" not in allowed  # a key never goes in the file
