"""inspect_ai's default ``.eval`` log read without inspect_ai: a real log (``tests/integrations/data``, written
by ``inspect eval`` of inspect_ai 0.3.285 against the baseline server; see the README there) through `zipfile`
and `zstandard`, imported as a run; a zip method neither reader reads, a damaged entry and a bad reader name
refused by name."""

import importlib.util
import json
import shutil
import struct
import zipfile
from pathlib import Path

import pytest

from plates.cli import main
from plates.integrations.inspect_log import ZIP_METHODS, read_inspect_log
from plates.results import load_results

LOG = Path(__file__).parent / "data" / "inspect-0.3.285-plates.eval"


def test_the_real_eval_log_uses_zstandard_which_zipfile_alone_cannot_read():
    with zipfile.ZipFile(LOG) as z:
        methods = {i.filename: i.compress_type for i in z.infolist()}
        sample = next(n for n in methods if n.startswith("samples/"))
        with pytest.raises(NotImplementedError, match="compression method"):
            z.read(sample)
    assert methods[sample] == 93 and methods["header.json"] == 93


def test_the_zip_reader_reads_the_real_log_as_its_json_form():
    log, samples = read_inspect_log(LOG, via="zip")
    assert log["status"] == "success" and log["eval"]["task"] == "plates"
    assert log["eval"]["model"] == "openai-api/plates/baseline-cnn"
    assert log["eval"]["packages"]["inspect_ai"].startswith("0.3.285")
    assert len(samples) == log["results"]["total_samples"] == 2
    for s in samples:
        question = json.loads(s["metadata"]["question_json"])
        assert question["task"].startswith("huemanity")
        assert s["scores"]["plates_scorer"]["value"] in ("C", "I")
        assert isinstance(s["output"]["choices"][0]["message"]["content"], str)
    if importlib.util.find_spec("inspect_ai") is None:  # here: the reader picked without inspect_ai is the zip's
        assert read_inspect_log(LOG) == (log, samples)


def test_the_real_log_imports_as_a_run_with_the_harness_verdict_beside_ours(tmp_path, capsys):
    _, samples = read_inspect_log(LOG, via="zip")
    assert main(["import", "inspect", str(LOG), "--out", str(tmp_path / "r")]) == 0
    assert "2 rows written" in capsys.readouterr().out
    frame = load_results([tmp_path / "r"]).frame.set_index("item_id")
    assert len(frame) == 2 and (frame["backend"] == "inspect_ai").all()
    for s in samples:
        row = frame.loc[s["metadata"]["item_id"]]
        assert row["reply"] == s["output"]["choices"][0]["message"]["content"]
        assert row["harness_correct"] == (s["scores"]["plates_scorer"]["value"] == "C") == row["correct"]
        assert row["parsed"] == s["scores"]["plates_scorer"]["answer"]


def test_a_sample_error_comes_back_bounded_whatever_its_form(tmp_path, capsys):
    log, samples = read_inspect_log(LOG, via="zip")
    errors = [{"message": "upstream 500 " + "x" * 5000, "traceback": "..."}, "timeout " + "y" * 5000]
    for s, error in zip(samples, errors):
        s.update(error=error, output={"choices": []})
    (tmp_path / "errors.json").write_text(json.dumps({**log, "samples": samples}))
    assert main(["import", "inspect", str(tmp_path / "errors.json"), "--out", str(tmp_path / "r")]) == 0
    frame = load_results([tmp_path / "r"]).frame
    assert sorted(e[:8] for e in frame["error"]) == ["timeout ", "upstream"]
    assert frame["error"].str.len().max() == 500 and frame["reply"].isna().all()


def _patch_method(path: Path, name: str, method: int) -> None:
    """Rewrite the compression method of entry ``name`` in its local header and its central-directory record
    (APPNOTE §4.3.7 offset 8, §4.3.12 offset 10; the directory's offset from §4.3.16's end record)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        local = z.getinfo(name).header_offset
    struct.pack_into("<H", data, local + 8, method)
    central = struct.unpack_from("<L", data, data.rindex(b"PK\x05\x06") + 16)[0]
    while bytes(data[central:central + 4]) == b"PK\x01\x02":
        length, extra, comment = struct.unpack_from("<HHH", data, central + 28)
        if bytes(data[central + 46:central + 46 + length]).decode() == name:
            struct.pack_into("<H", data, central + 10, method)
            break
        central += 46 + length + extra + comment
    else:
        raise AssertionError(f"{name} not in the central directory")
    path.write_bytes(bytes(data))


def test_a_zip_method_neither_reader_reads_is_refused_by_number_with_the_allowed_ones(tmp_path):
    log = tmp_path / "odd.eval"
    shutil.copy(LOG, log)
    with zipfile.ZipFile(log) as z:
        sample = next(n for n in z.namelist() if n.startswith("samples/"))
    _patch_method(log, sample, 99)  # 99: AES-encrypted (APPNOTE appendix E), read by neither
    with pytest.raises(ValueError, match=r"method 99.*allowed: 0 \(stored\), 8 \(deflate\).*93 \(Zstandard\)"):
        read_inspect_log(log, via="zip")
    assert ZIP_METHODS[93] == "Zstandard"


def test_a_damaged_zstandard_entry_is_refused_not_half_read(tmp_path):
    log = tmp_path / "damaged.eval"
    data = bytearray(LOG.read_bytes())
    with zipfile.ZipFile(LOG) as z:
        info = z.getinfo(next(n for n in z.namelist() if n.startswith("samples/")))
    name_length, extra = struct.unpack_from("<HH", data, info.header_offset + 26)  # the local header's own
    start = info.header_offset + 30 + name_length + extra
    data[start + info.compress_size // 2] ^= 0xFF
    log.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged"):
        read_inspect_log(log, via="zip")


def test_a_deflate_log_reads_and_a_damaged_one_is_refused(tmp_path):
    log = tmp_path / "deflate.eval"
    sample = {"id": 1, "metadata": {"question_json": "{}"}, "text": "x" * 4000}
    with zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({"status": "success", "eval": {"task": "plates", "model": "m"}}))
        z.writestr("samples/1_epoch_1.json", json.dumps(sample))
    assert read_inspect_log(log, via="zip") == ({"status": "success", "eval": {"task": "plates", "model": "m"}},
                                                [sample])
    data = bytearray(log.read_bytes())
    with zipfile.ZipFile(log) as z:
        info = z.getinfo("samples/1_epoch_1.json")
    data[info.header_offset + 30 + len(info.filename) + 2] ^= 0xFF
    log.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="samples/1_epoch_1.json.*damaged"):
        read_inspect_log(log, via="zip")


def test_other_zips_and_readers_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match=r"via='zstd' is not a reader; allowed: None, 'inspect_ai', 'zip'"):
        read_inspect_log(LOG, via="zstd")
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("data.json", "{}")
    with pytest.raises(ValueError, match="without header.json"):
        read_inspect_log(other, via="zip")
    with pytest.raises(ValueError, match="does not exist"):
        read_inspect_log(tmp_path / "missing.eval")
