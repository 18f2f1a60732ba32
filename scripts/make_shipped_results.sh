#!/usr/bin/env bash
# Rebuild the dashboard's first-start results under results/runs/ (or the folder given), from scratch:
#
#   scripts/make_shipped_results.sh [OUT]          # ~5 min on 2 free cores; rerun after the reader's weights change
#
# * the bundled reader (backend baseline, plates/assets/baseline/) on ColorBlindnessEval:
#   examples/baseline-cbe.toml (standard and clear plates, 300 and 900 px, colour and grayscale: 4,000 rows),
#   examples/shipped/reader-cvd.toml (100 plates in colour and the three CVD views) and reader-sizes.toml (the
#   same plates at 150, 300, 600, 900 and 1200 px);
# * the pixel-reading reference observer (backend reference-pixels: "reference observer (reads pixels; a
#   ceiling, not a model)", plates/models/reference.py) on every illusion preset and on the ColorBench scene
#   presets (40 items a task, each prompt and its chain-of-thought twin; 5 robustness seeds x 10 variants).
#
# No vision-language model is run here: nothing in these results is a VLM's answer. Each run is compacted into
# one Parquet part (plates.results.compaction), so the folder stays a few MB.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-results/runs}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
JOBS=${JOBS:-2}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)

run() {  # run NAME ARGS...: one `plates run` into $OUT/NAME, its log in $TMP/NAME.log
    local name=$1; shift
    rm -rf "${OUT:?}/$name"
    python3 -m plates.cli run "$@" --out "$OUT/$name" --no-progress >"$TMP/$name.log" 2>&1 \
        || { cat "$TMP/$name.log" >&2; return 1; }
    tail -n 1 "$TMP/$name.log"
}

reference_toml() {  # reference_toml NAME DATASET LIMIT PROMPT...: the reference observer's experiment file
    local name=$1 dataset=$2 limit=$3; shift 3
    local prompts; prompts=$(printf '"%s", ' "$@")
    cat >"$TMP/$name.toml" <<TOML
name = "$name"
seed = 0
shots = [0]
prompts = [${prompts%, }]
[dataset]
source = "$dataset"
$( [ "$limit" = all ] || echo "limit = $limit" )
[[models]]
backend = "reference-pixels"
TOML
    echo "$TMP/$name.toml"
}

jobs_list=()
jobs_list+=("baseline-cbe examples/baseline-cbe.toml")
jobs_list+=("reader-cvd examples/shipped/reader-cvd.toml")
jobs_list+=("reader-sizes examples/shipped/reader-sizes.toml")
jobs_list+=("reference-rcid-contrast $(reference_toml reference-rcid-contrast rcid-contrast all rcid-compare-pixel rcid-compare-human)")
jobs_list+=("reference-rcid-stripe $(reference_toml reference-rcid-stripe rcid-stripe 240 rcid-compare-pixel rcid-compare-human)")
jobs_list+=("reference-rcid-filter $(reference_toml reference-rcid-filter rcid-filter all rcid-name-pixel rcid-name-human)")
jobs_list+=("reference-illusions-classic $(reference_toml reference-illusions-classic illusions-classic all rcid-compare-human illusionbench-tf illusionbench-mc)")
jobs_list+=("reference-illusion-magnitude $(reference_toml reference-illusion-magnitude illusion-magnitude all rcid-compare-human)")
for task in colour-extraction colour-proportion colour-counting object-counting colour-comparison colour-recognition \
            object-recognition colour-mimicry; do
    jobs_list+=("reference-colorbench-$task $(reference_toml reference-colorbench-$task colorbench-$task 40 \
        colorbench-$task colorbench-$task-cot)")
done
jobs_list+=("reference-colorbench-robustness $(reference_toml reference-colorbench-robustness colorbench-robustness 50 colorbench-shape-counting)")

mkdir -p "$OUT"
failed=0
for job in "${jobs_list[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
    # shellcheck disable=SC2086
    run $job &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
[ "$failed" = 0 ] || { echo "make_shipped_results: a run failed (its log is above)" >&2; exit 1; }
find "$OUT" -name '*.lock' -delete
echo "shipped results in $OUT: $(du -sh "$OUT" | cut -f1), $(( $(date +%s) - start )) s wall; CPU (user, system) of the runs:"
times | tail -n 1
