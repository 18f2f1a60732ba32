"""Reading results parts (`plates.results.reader`): real files on disk (tmp_path)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.results import (
    CATEGORICAL_COLUMNS,
    SCHEMA,
    ResultsWriter,
    compact_run,
    load_results,
    rows_to_table,
    write_part,
)
from tests.support.result_rows import result_row as _row


def test_load_takes_the_union_of_columns_across_parts(tmp_path):
    # An old part without some columns, a newer one with an extra column: pandas.read_parquet(folder) would
    # take one file's schema; we keep every column.
    old = pa.table({"run_id": ["r"], "item_id": ["a"], "correct": [True]})
    new = rows_to_table([_row(1, reply="12")]).append_column("judge", pa.array(["gpt"]))
    pq.write_table(old, tmp_path / "a-old.parquet")
    (tmp_path / "sub").mkdir()
    pq.write_table(new, tmp_path / "sub" / "b-new.parquet")
    loaded = load_results(tmp_path)
    frame = loaded.frame
    assert list(frame.columns) == [*SCHEMA.names, "judge"]
    assert len(frame) == 2 and loaded.skipped == []
    by_item = frame.set_index("item_id")
    assert by_item.loc["item-1", "judge"] == "gpt" and pd.isna(by_item.loc["a", "judge"])
    assert pd.isna(by_item.loc["a", "reply"]) and by_item.loc["item-1", "reply"] == "12"


def test_load_casts_compatible_types_and_skips_incompatible(tmp_path):
    pq.write_table(pa.table({"item_id": ["a"], "size": pa.array([128], pa.int64())}), tmp_path / "ok.parquet")
    pq.write_table(pa.table({"item_id": ["b"], "size": ["huge"]}), tmp_path / "bad.parquet")
    loaded = load_results(tmp_path)
    assert loaded.frame["size"].tolist() == [128]
    assert [(os.path.basename(p), "size" in why) for p, why in loaded.skipped] == [("bad.parquet", True)]


def test_load_skips_and_names_corrupt_and_foreign_files(tmp_path):
    with ResultsWriter(tmp_path, "good", autoflush=False) as w:
        w.add(_row(0))
    (tmp_path / "garbage.parquet").write_bytes(b"this is not parquet at all")
    good = w.parts[0].read_bytes()
    (tmp_path / "truncated.parquet").write_bytes(good[: len(good) // 2])
    pq.write_table(pa.table({"x": [1, 2], "y": ["a", "b"]}), tmp_path / "foreign.parquet")
    (tmp_path / ".hidden.parquet.tmp").write_bytes(b"half")  # a writer's temporary: ignored, not 'skipped'
    loaded = load_results(tmp_path)
    assert len(loaded.frame) == 1
    reasons = {os.path.basename(p): why for p, why in loaded.skipped}
    assert set(reasons) == {"garbage.parquet", "truncated.parquet", "foreign.parquet"}
    assert "corrupt" in reasons["garbage.parquet"] and "corrupt" in reasons["truncated.parquet"]
    assert "not a results file" in reasons["foreign.parquet"] and "x, y" in reasons["foreign.parquet"]


def test_load_of_an_empty_folder_has_the_schema_columns(tmp_path):
    loaded = load_results(tmp_path)
    assert list(loaded.frame.columns) == SCHEMA.names and len(loaded.frame) == 0


def test_load_of_a_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_results(tmp_path / "nope")


def test_latest_row_per_key_wins_only_for_retry_parts(tmp_path):
    t0, t1 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    with ResultsWriter(tmp_path, "r", autoflush=False) as w:
        w.add(_row(0, parse_status="error", error="boom", timestamp=t0))
        w.add(_row(1, parse_status="ok", timestamp=t0))
    with ResultsWriter(tmp_path, "r", autoflush=False, supersedes=True) as w:
        w.add(_row(0, parse_status="ok", reply="7", timestamp=t1))
    frame = load_results(tmp_path).frame
    assert sorted(frame["row_key"]) == ["k0", "k1"]
    assert frame.set_index("row_key").loc["k0", "reply"] == "7"
    assert len(load_results(tmp_path, latest=False).frame) == 3


def test_a_part_merged_away_while_loading_is_not_reported_as_corrupt(tmp_path, monkeypatch):
    from plates.results import reader as results

    with ResultsWriter(tmp_path, "r", flush_rows=1, autoflush=False) as w:
        for i in range(3):
            w.add(_row(i))
    real = results.find_parts
    calls = []

    def listing_then_merge(paths):  # list the small parts, then compact_run deletes them before they are read
        found = real(paths)
        if not calls:
            compact_run(tmp_path, "r")
        calls.append(found)
        return found

    monkeypatch.setattr(results, "find_parts", listing_then_merge)
    loaded = load_results(tmp_path)
    assert len(calls) == 2 and loaded.skipped == [] and len(loaded.frame) == 3


def test_load_only_some_columns(tmp_path):
    t0, t1 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    with ResultsWriter(tmp_path, "r", autoflush=False) as w:
        w.add(_row(0, parse_status="error", timestamp=t0))
        w.add(_row(1, parse_status="ok", timestamp=t0))
    with ResultsWriter(tmp_path, "r", autoflush=False, supersedes=True) as w:
        w.add(_row(0, parse_status="ok", timestamp=t1))
    frame = load_results(tmp_path, columns=["item_id", "parse_status"]).frame
    assert list(frame.columns) == ["item_id", "parse_status"] and len(frame) == 2  # latest per key still applied
    assert (frame["parse_status"] == "ok").all()
    with pytest.raises(ValueError, match=r"unknown results columns \['nope'\]"):
        load_results(tmp_path, columns=["item_id", "nope"])
    with pytest.raises(ValueError, match="list of column names"):
        load_results(tmp_path, columns="item_id")


def test_exclude_leaves_files_out_silently(tmp_path):
    with ResultsWriter(tmp_path, "keep", autoflush=False) as w:
        w.add(_row(0))
    pq.write_table(rows_to_table([_row(1)]).replace_schema_metadata({b"plates.kind": b"reference"}),
                   tmp_path / "reference.parquet")
    loaded = load_results(tmp_path, exclude=lambda p: (pq.read_schema(p).metadata or {}).get(b"plates.kind") == b"reference")
    assert loaded.frame["item_id"].tolist() == ["item-0"] and loaded.skipped == []


def test_reference_tables_are_left_out_and_not_called_skipped(tmp_path):
    # The papers' tables (plates.results.reference, metadata plates.kind = reference) share columns such as model and
    # task with results, but are not runs: never rows of a results frame, never "skipped" either.
    from plates.results.reference import REFERENCE_DIR

    with ResultsWriter(tmp_path, "keep", autoflush=False) as w:
        w.add(_row(0))
    (tmp_path / "reference").mkdir()
    for table in sorted(REFERENCE_DIR.glob("*.parquet"))[:2]:
        (tmp_path / "reference" / table.name).write_bytes(table.read_bytes())
    pq.write_table(rows_to_table([_row(1)]).replace_schema_metadata({b"plates.kind": b"reference"}),
                   tmp_path / "marked.parquet")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not parquet")
    loaded = load_results(tmp_path)
    assert loaded.frame["item_id"].tolist() == ["item-0"]
    assert [name.rsplit("/", 1)[-1] for name, _ in loaded.skipped] == ["broken.parquet"]
    assert [Path(f).parent for f in loaded.files] == [tmp_path] and len(loaded.files) == 1


def _plain(frame: pd.DataFrame) -> list[list]:
    """Cell values with nulls as None, for comparing a categorical frame with a plain one."""
    return [[None if pd.isna(v) else v for v in row] for row in frame.astype(object).itertuples(index=False)]


def test_categorical_gives_the_same_values_as_categories_sorted(tmp_path):
    t0, t1 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    with ResultsWriter(tmp_path, "r", autoflush=False, flush_rows=2) as w:  # several parts, own dictionaries
        for i in range(5):
            w.add(_row(i, model=["zeta", "alpha", None][i % 3], reply=f"reply {i % 2}", timestamp=t0))
    with ResultsWriter(tmp_path, "r", autoflush=False, supersedes=True) as w:  # a retry: latest per key kept
        w.add(_row(1, model="beta", reply="retried", timestamp=t1))
    old = pa.table({"item_id": pa.array(["old"], pa.large_string()), "model": ["mid"], "size": [64]})
    pq.write_table(old, tmp_path / "x-old.parquet")  # an older writer: other string type, columns missing
    pq.write_table(rows_to_table([_row(9, model="exported")]).append_column("judge", pa.array(["gpt"]))
                   .cast(pa.schema([*(f.with_type(pa.dictionary(pa.int8(), pa.string())) if f.name == "model"
                                      else f for f in SCHEMA), pa.field("judge", pa.string())])),
                   tmp_path / "y-exported.parquet")  # a categorical frame's export: dictionary on disk
    plain = load_results(tmp_path).frame
    cat = load_results(tmp_path, categorical=True).frame
    assert list(cat.columns) == list(plain.columns) == [*SCHEMA.names, "judge"]
    assert _plain(cat) == _plain(plain) and len(cat) == 7
    assert cat.set_index("row_key").loc["k1", "reply"] == "retried"
    for name in CATEGORICAL_COLUMNS:
        assert isinstance(cat[name].dtype, pd.CategoricalDtype), name
        assert list(cat[name].cat.categories) == sorted(cat[name].dropna().unique()), name
    assert not isinstance(cat["row_key"].dtype, pd.CategoricalDtype) and cat["judge"].tolist()[-1] == "gpt"
    assert cat.sort_values("model")["item_id"].tolist() == plain.sort_values("model")["item_id"].tolist()
    assert not isinstance(plain["model"].dtype, pd.CategoricalDtype)  # the default stays plain strings
    narrow = load_results(tmp_path, categorical=True, columns=["model", "correct"]).frame
    assert list(narrow.columns) == ["model", "correct"] and narrow["model"].dtype == "category"
    assert _plain(narrow) == _plain(plain[["model", "correct"]])
    with pytest.raises(ValueError, match="categorical must be True or False"):
        load_results(tmp_path, categorical="yes")


def test_categorical_load_of_an_empty_folder(tmp_path):
    frame = load_results(tmp_path, categorical=True).frame
    assert len(frame) == 0 and list(frame.columns) == SCHEMA.names


def test_rows_without_a_run_name_read_their_folders_name_in_both_loaders(tmp_path):
    """A part written before rows recorded ``run_name`` reads its folder's name (the run's --out folder); a
    row that records one keeps it; pandas (load_results) and DuckDB (open_results) agree."""
    from plates.results.query import open_results

    old = {"row_key": "k1", "run_id": "cbe-71ba3e1d4bc7", "model": "m", "correct": True}
    new = {"row_key": "k2", "run_id": "cbe-0351d322b74f", "run_name": "my-run", "model": "m", "correct": False}
    write_part(rows_to_table([old]).drop_columns(["run_name"]), tmp_path / "runs" / "reader-cvd" / "a.parquet")
    write_part(rows_to_table([new]), tmp_path / "runs" / "elsewhere" / "b.parquet")
    write_part(rows_to_table([{**old, "row_key": "k3"}]), tmp_path / "runs" / "nulls" / "c.parquet")
    want = {"k1": "reader-cvd", "k2": "my-run", "k3": "nulls"}
    for categorical in (False, True):
        frame = load_results(tmp_path, categorical=categorical).frame
        assert dict(zip(frame["row_key"], frame["run_name"].astype(str))) == want
    assert list(load_results(tmp_path, columns=["run_name"]).frame["run_name"].sort_values()) == sorted(want.values())
    duck = open_results(tmp_path).query("SELECT row_key, run_name FROM results")
    assert dict(zip(duck["row_key"], duck["run_name"])) == want


def _both_loaders(folder: Path) -> list[dict[str, tuple]]:
    """{row_key: (family, group, colour_set)} as every way of loading reads ``folder``: pandas plain,
    categorical and column-projected, compaction's reader, and DuckDB."""
    from plates.results.query import open_results
    from plates.results.reader import find_parts, read_parts, union_tables

    def pick(frame) -> dict[str, tuple]:
        none = lambda v: None if pd.isna(v) else str(v)  # noqa: E731
        return {k: tuple(none(frame[c].iloc[i]) for c in ("family", "group", "colour_set"))
                for i, k in enumerate(frame["row_key"])}

    out = [pick(load_results(folder, categorical=c).frame) for c in (False, True)]
    projected = load_results(folder, columns=["row_key", "family", "group", "colour_set"]).frame
    out.append(pick(projected))
    assert list(projected.columns) == ["row_key", "family", "group", "colour_set"]
    group_only = load_results(folder, columns=["row_key", "group"]).frame
    sets_only = load_results(folder, columns=["row_key", "colour_set"]).frame
    out.append(pick(group_only.assign(family=projected["family"], colour_set=sets_only["colour_set"])))
    assert list(group_only.columns) == ["row_key", "group"] and list(sets_only.columns) == ["row_key", "colour_set"]
    files = find_parts(folder)
    out.append(pick(union_tables([p.table for p in read_parts(files) if p.table is not None]).to_pandas()))
    out.append(pick(open_results(folder).query('SELECT row_key, family, "group", colour_set FROM results')))
    return out


def test_rows_written_before_group_read_it_from_colour_set(tmp_path):
    """A part with the old columns only (no ``group``): ``group`` reads its ``colour_set``, and ``colour_set``
    is null where the row is not a plate (by ``family``; a part older than ``family`` holds plates only);
    today's rows pass unchanged. pandas, compaction's reader and DuckDB agree."""
    old = [{"row_key": "plate", "family": "ishihara", "colour_set": "colorblindnesseval-1"},
           {"row_key": "illusion", "family": "illusion", "colour_set": "chevreul"},
           {"row_key": "scene", "family": "scene", "colour_set": "colour-counting"},
           {"row_key": "recolour", "family": "scene-recolour", "colour_set": "robustness-0003"},
           {"row_key": "no-set", "family": "illusion", "colour_set": None}]
    pq.write_table(pa.Table.from_pylist(old), tmp_path / "old.parquet")  # the old columns only
    pq.write_table(pa.Table.from_pylist([{"row_key": "before-family", "colour_set": "huemanity-07"}]),
                   tmp_path / "older.parquet")
    new = [{"row_key": "new-plate", "family": "ishihara", "group": "huemanity-01", "colour_set": "huemanity-01"},
           {"row_key": "new-scene", "family": "scene", "group": "colour-mimicry", "colour_set": None}]
    write_part(rows_to_table(new), tmp_path / "new.parquet")
    want = {"plate": ("ishihara", "colorblindnesseval-1", "colorblindnesseval-1"),
            "illusion": ("illusion", "chevreul", None), "scene": ("scene", "colour-counting", None),
            "recolour": ("scene-recolour", "robustness-0003", None), "no-set": ("illusion", None, None),
            "before-family": (None, "huemanity-07", "huemanity-07"),
            "new-plate": ("ishihara", "huemanity-01", "huemanity-01"), "new-scene": ("scene", "colour-mimicry", None)}
    for read in _both_loaders(tmp_path):
        assert read == want


def test_shipped_runs_read_group_and_stay_byte_unchanged():
    """The stored first-start runs (written before ``group``): every row's ``group`` is what it stored as its
    grouping, ``colour_set`` is kept on plate rows only, and loading changes no byte of them."""
    import hashlib

    from plates.results.schema import PLATE_FAMILIES
    from plates.stimuli import STIMULI

    assert set(PLATE_FAMILIES) <= set(STIMULI)
    folder = Path(__file__).resolve().parents[2] / "results" / "runs"
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    stored = {}
    for part in folder.rglob("*.parquet"):
        names = pq.read_schema(part).names
        if "row_key" not in names or "colour_set" not in names:
            continue  # a summary table (ellipses), not rows
        table = pq.read_table(part, columns=[c for c in ("row_key", "family", "group", "colour_set") if c in names])
        for row in table.to_pylist():
            stored[row["row_key"]] = (row["family"], row.get("group") or row["colour_set"], row["colour_set"])
    want = {k: (f, g, s if f in PLATE_FAMILIES else None) for k, (f, g, s) in stored.items()}
    assert {f for f, _, _ in want.values()} >= {"ishihara", "illusion", "scene"}
    assert any(g is not None and s is None for _, g, s in want.values())  # illusions and scenes lose colour_set
    for read in _both_loaders(folder):
        assert read == want
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files} == before
