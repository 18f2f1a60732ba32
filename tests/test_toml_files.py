"""`plates.toml_files.read_toml`: a parsed TOML document, or one ValueError that names the file, its role and what
went wrong (missing, a folder, not UTF-8, not TOML)."""

from __future__ import annotations

import pytest

from plates.toml_files import read_toml


def test_a_toml_file_reads_as_its_document(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text('name = "x"\n[grid]\nsizes = [300, 900]\n', encoding="utf-8")
    assert read_toml(path, "experiment") == {"name": "x", "grid": {"sizes": [300, 900]}}
    assert read_toml(str(path), "experiment") == read_toml(path, "experiment")  # a str path reads the same


def test_an_empty_file_is_an_empty_document(tmp_path):
    path = tmp_path / "empty.toml"
    path.write_text("", encoding="utf-8")
    assert read_toml(path, "grid") == {}


def test_a_missing_file_is_named_with_its_role(tmp_path):
    path = tmp_path / "nope.toml"
    with pytest.raises(ValueError, match=r"^staircase file '.*nope\.toml' does not exist$"):
        read_toml(path, "staircase")


def test_a_folder_is_refused_naming_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match=r"^grid file '.*' is a folder; allowed: a TOML file$"):
        read_toml(tmp_path, "grid")


def test_a_binary_file_names_the_byte_and_what_is_allowed(tmp_path):
    path = tmp_path / "image.toml"
    path.write_bytes(b'name = "a"\n\xff\xfe')
    with pytest.raises(ValueError, match=r"prompts file '.*image\.toml' is not valid TOML: not UTF-8 text "
                                         r"\(byte 11\); allowed: a UTF-8 TOML file"):
        read_toml(path, "prompts")


def test_toml_that_does_not_parse_carries_the_parsers_reason(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\nname = "y"\n', encoding="utf-8")  # a key defined twice
    with pytest.raises(ValueError, match=r"^experiment file '.*bad\.toml' is not valid TOML: .*line 2") as info:
        read_toml(path, "experiment")
    assert info.value.__cause__ is None  # the tomllib error is folded into the message, not chained
