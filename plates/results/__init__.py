"""Results: the schema (declared once), the append-only writer, the reader, compaction, and the papers'
published reference tables.

* `plates.results.schema`: ``COLUMNS``, ``SCHEMA``, ``rows_to_table``.
* `plates.results.writer`: ``write_part``, ``ResultsWriter`` (atomic parts, crash-safe).
* `plates.results.reader`: ``load_results`` (union of columns, corrupt or foreign files named).
* `plates.results.compaction`: ``compact_run``.
* `plates.results.reference`: the papers' numbers (``load_reference``).
"""

from plates.results.compaction import compact_run
from plates.results.reader import LoadedResults, find_parts, load_results
from plates.results.schema import CATEGORICAL_COLUMNS, COLUMNS, SCHEMA, rows_to_table
from plates.results.writer import ResultsWriter, write_part

__all__ = [
    "COLUMNS", "SCHEMA", "CATEGORICAL_COLUMNS", "rows_to_table", "write_part", "ResultsWriter", "LoadedResults",
    "find_parts", "load_results", "compact_run",
]
