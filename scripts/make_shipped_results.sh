#!/usr/bin/env bash
# Rebuild the dashboard's first-start results under results/runs/ (or the folder given), from scratch:
#
#   scripts/make_shipped_results.sh [OUT]   # rerun after the reader's weights change; 553 s wall on 2 cores
#                                           # shared at load ~8 (2026-11-26), deterministic run ids and answers
#
# * the bundled reader (backend baseline, plates/assets/baseline/) on ColorBlindnessEval:
#   examples/baseline-cbe.toml (standard and clear plates, 300 and 900 px, colour and grayscale: 4,000 rows),
#   examples/shipped/reader-cvd.toml (100 plates in colour and the three CVD views) and reader-sizes.toml (the
#   same plates at 150, 300, 600, 900 and 1200 px), and an 80-trial ΔE2000 staircase (`plates staircase`,
#   with HueManity's per-dot jitter);
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

run() {  # run NAME COMMAND ARGS...: `plates COMMAND ARGS` into $OUT/NAME, its log in $TMP/NAME.log
    local name=$1 command=$2; shift 2
    rm -rf "${OUT:?}/$name"
    local quiet=(--no-progress); [ "$command" = run ] || quiet=()
    python3 -m plates.cli "$command" "$@" --out "$OUT/$name" "${quiet[@]}" >"$TMP/$name.log" 2>&1 \
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
jobs_list+=("baseline-cbe run examples/baseline-cbe.toml")
jobs_list+=("reader-cvd run examples/shipped/reader-cvd.toml")
jobs_list+=("reader-sizes run examples/shipped/reader-sizes.toml")
# the ΔE2000 page's psychometric fit: 80 adaptive trials near the reader's threshold (each trial's background
# along its own CIELAB direction at the level as drawn)
jobs_list+=("reader-staircase staircase --prompt huemanity-numeric --backend baseline --palette huemanity-01 --jitter 1 --trials 80 --size 512")
jobs_list+=("reference-rcid-contrast run $(reference_toml reference-rcid-contrast rcid-contrast all rcid-compare-pixel rcid-compare-human)")
jobs_list+=("reference-rcid-stripe run $(reference_toml reference-rcid-stripe rcid-stripe 240 rcid-compare-pixel rcid-compare-human)")
jobs_list+=("reference-rcid-filter run $(reference_toml reference-rcid-filter rcid-filter all rcid-name-pixel rcid-name-human)")
jobs_list+=("reference-illusions-classic run $(reference_toml reference-illusions-classic illusions-classic all rcid-compare-human illusionbench-tf illusionbench-mc)")
jobs_list+=("reference-illusion-magnitude run $(reference_toml reference-illusion-magnitude illusion-magnitude all rcid-compare-human)")
for task in colour-extraction colour-proportion colour-counting object-counting colour-comparison colour-recognition \
            object-recognition colour-mimicry; do
    jobs_list+=("reference-colorbench-$task run $(reference_toml reference-colorbench-$task colorbench-$task 40 \
        colorbench-$task colorbench-$task-cot)")
done
jobs_list+=("reference-colorbench-robustness run $(reference_toml reference-colorbench-robustness colorbench-robustness 50 colorbench-shape-counting)")
# the bundled reader's discrimination ellipses at two of MacAdam's centres (the Observers page)
jobs_list+=("ellipses-baseline ellipses --backend baseline --centres 0.305,0.323;0.385,0.393 --directions 8 --trials 12 --seed 0")

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
# the manifest that tells the dashboard these runs came with the checkout (plates.results.shipped)
python3 -c 'import sys; from plates.results.shipped import write_manifest; write_manifest(sys.argv[1])' "$OUT"
echo "shipped results in $OUT: $(du -sh "$OUT" | cut -f1), $(( $(date +%s) - start )) s wall; CPU (user, system) of the runs:"
times >"$TMP/times"  # (not in a pipe: a pipeline's subshell has no children of its own to count)
tail -n 1 "$TMP/times"
