#!/usr/bin/env bash
# The main job on the embedded toy family, end to end: link items, route findings,
# apply confirmed corrections, enrich the Croissant descriptors with PROV-O, validate
# them, and resolve an item's family from the enriched metadata alone.
# Usage: bash examples/toy/run.sh [OUT]   (default OUT: out/toy; re-runs replace it)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-out/toy}"
mkdir -p "$out"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-1700000000}"  # fixed time: byte-identical output

croissant-lineage link "$here/family.json" --out "$out/lineage" --force
echo "== family of toy-pro:105"
croissant-lineage relatives toy-pro:105 --lineage "$out/lineage" --svg "$out/toy-pro-105.svg" --force
echo "== a number-perturbed word problem (numeric keys) and a translated code problem (tests)"
croissant-lineage relatives toy-math-perturbed:v2 --lineage "$out/lineage"
croissant-lineage relatives toy-code-js:JS/0 --lineage "$out/lineage"
echo "== re-review queue for an added option (toy-pro:109)"
croissant-lineage route toy-pro:109 --lineage "$out/lineage" --findings "$here/findings.yaml"
echo "== corrections from confirmed findings only"
croissant-lineage apply --dataset toy-pro --lineage "$out/lineage" --findings "$here/findings.yaml" \
  --out "$out/toy-pro.corrected.parquet" --force
echo "== enrich, validate, resolve"
croissant-lineage enrich --family "$here/family.json" --lineage "$out/lineage" \
  --findings "$here/findings.yaml" --out "$out/enriched" --quiet
# The copies sit apart from their data (enrich warns CL-W001 and validate would report CLV701):
# their metadata is checked here; 'enrich --in-place NAME' writes copies that load every RecordSet.
croissant-lineage validate "$out/enriched" "$here/findings.yaml" "$out/lineage" --family "$here/family.json" \
  --metadata-only
croissant-lineage resolve toy-pro:105 "$out/enriched"
