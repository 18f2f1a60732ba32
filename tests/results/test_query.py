"""Results queried in place (`plates.results.query`): DuckDB over real Parquet parts with `load_results`'
semantics (latest row per row_key for retry parts, corrupt and foreign files named, reference tables left out,
compacted parts hiding what they replace), a robust walk, columns a part lacks read as null, text cut to its cap,
and queries that take parameters."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.results import load_results
from plates.results.query import MAX_ENTRIES, TEXT_CAP, TEXT_CAPS, list_parts, open_results, scan_parts
from plates.results.schema import SCHEMA, SUPERSEDES_KEY
from tests.support.dashboard_rows import outcomes, rows, write_part


def test_the_latest_row_per_row_key_wins_as_in_load_results(tmp_path):
    first = rows(4, model="a", correct=[True, None, None, False])
    write_part(tmp_path / "r-0.parquet", first)
    retry = first.iloc[[1, 2]].assign(correct=[True, False], timestamp=pd.Timestamp("2026-02-01", tz="UTC"))
    table = pa.Table.from_pandas(retry, preserve_index=False).replace_schema_metadata({SUPERSEDES_KEY: b"1"})
    pq.write_table(table, tmp_path / "r-1.parquet")
    results = open_results(tmp_path)
    assert results.row_count() == 4
    got = results.query("SELECT item_id, correct FROM results ORDER BY item_id")
    want = load_results(tmp_path).frame.sort_values("item_id")
    assert got["correct"].tolist() == want["correct"].tolist() == [True, True, False, False]


def test_corrupt_foreign_and_reference_files_as_load_results_says(tmp_path):
    write_part(tmp_path / "good.parquet", outcomes("a", 1, 2))
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not parquet")
    pq.write_table(pa.table({"colour": ["red"]}), tmp_path / "foreign.parquet")
    pq.write_table(pa.table({"model": ["m"], "size": ["big"]}), tmp_path / "typed.parquet")
    from plates.results.reference import REFERENCE_DIR

    (tmp_path / "t.parquet").write_bytes((REFERENCE_DIR / "huemanity_table5.parquet").read_bytes())
    pq.write_table(
        pa.Table.from_pandas(outcomes("b", 1, 1).assign(extra=1), preserve_index=False),
        tmp_path / "newer.parquet",
    )
    results = open_results(tmp_path)
    skipped = dict((name.rsplit("/", 1)[-1], why) for name, why in results.parts.skipped)
    assert set(skipped) == {"broken.parquet", "foreign.parquet", "typed.parquet"}
    assert "corrupt" in skipped["broken.parquet"] and "size" in skipped["typed.parquet"]
    assert results.row_count() == 3 == len(load_results(tmp_path).frame)


def test_a_compacted_part_hides_the_parts_it_replaced(tmp_path):
    from plates.results import compact_run

    for i in range(3):
        write_part(tmp_path / f"r-{i}.parquet", outcomes("a", 1, 1, run_id="r", item_id=f"item-{i}"))
    (tmp_path / "copy").mkdir()
    merged = compact_run(tmp_path, "r")
    assert merged is not None and open_results(tmp_path).row_count() == 3


def test_the_walk_is_robust_and_refuses_a_whole_file_system(tmp_path, monkeypatch):
    (tmp_path / ".hidden").mkdir()
    write_part(tmp_path / ".hidden" / "x.parquet", rows(1))
    write_part(tmp_path / "_tmp.parquet", rows(1))
    write_part(tmp_path / "a" / "b.parquet", rows(1))
    assert [p.name for p in list_parts(tmp_path)] == ["b.parquet"]
    with pytest.raises(ValueError, match="nowhere"):
        list_parts(tmp_path / "nowhere")
    import plates.results.query as q

    monkeypatch.setattr(q, "MAX_ENTRIES", 3)
    for i in range(5):
        (tmp_path / f"d{i}").mkdir()
    with pytest.raises(ValueError, match="too much to be a results folder"):
        list_parts(tmp_path)
    assert MAX_ENTRIES >= 100_000


def test_columns_a_part_lacks_read_as_null_and_every_column_is_there(tmp_path):
    old = rows(2, model="old")
    old_table = pa.Table.from_pandas(old.drop(columns=["rules_version", "label_space"]), preserve_index=False)
    pq.write_table(old_table, tmp_path / "old.parquet")
    write_part(
        tmp_path / "new.parquet",
        rows(2, model="new", item_id=["n0", "n1"], rules_version=6, label_space="cbe"),
    )
    results = open_results(tmp_path)
    got = results.query("SELECT model, rules_version, label_space FROM results ORDER BY model")
    assert got["model"].tolist() == ["new", "new", "old", "old"]
    assert got["label_space"].iloc[2:].isna().all()
    assert got["rules_version"].iloc[2:].tolist() == [0, 0], "a part without rules_version was judged unversioned"
    assert (
        got["rules_version"].iloc[:2].tolist() == [6, 6]
        and got["label_space"].iloc[:2].tolist() == ["cbe"] * 2
    )
    assert set(SCHEMA.names) <= set(results.query("SELECT * FROM results LIMIT 1").columns)


def test_long_text_is_read_cut_to_its_cap(tmp_path):
    long_reply, long_model = "x" * (TEXT_CAPS["reply"] + 500), "m" * (TEXT_CAP + 50)
    write_part(tmp_path / "p.parquet", rows(1, reply=[long_reply], model=[long_model]))
    got = open_results(tmp_path).query("SELECT reply, model FROM results").iloc[0]
    assert len(got["reply"]) == TEXT_CAPS["reply"] and got["model"] == long_model
    short = open_results(tmp_path, short_text=True).query("SELECT model FROM results")["model"].iloc[0]
    assert len(short) == TEXT_CAP, "uploads: every text column is cut"


def test_queries_take_parameters_and_arrow_tables(tmp_path):
    write_part(tmp_path / "p.parquet", rows(3, model=["a", "b", "a"]))
    results = open_results(tmp_path)
    assert results.query("SELECT count(*) AS n FROM results WHERE model = ?", ["a"])["n"].iloc[0] == 2
    assert results.arrow("SELECT model FROM results WHERE model = $m", {"m": "b"}).num_rows == 1
    assert isinstance(results.arrow("SELECT model FROM results"), pa.Table)


def test_scan_names_the_parts_and_a_missing_path_is_refused(tmp_path):
    write_part(tmp_path / "run" / "p.parquet", rows(1))
    parts = scan_parts(tmp_path)
    assert [f.rsplit("/", 1)[-1] for f in parts.files] == ["p.parquet"] and not parts.skipped
    with pytest.raises(ValueError, match="missing"):
        open_results(tmp_path / "missing")
    assert pd.api.types.is_integer(open_results(tmp_path).row_count())
