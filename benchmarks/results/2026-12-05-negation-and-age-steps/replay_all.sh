#!/bin/bash
# usage: replay_all.sh STEP OUTDIR
STEP=$1; OUT=$2; mkdir -p $OUT
declare -A seen
for f in benchmarks/results/*/*.jsonl; do
  b=$(basename $f)
  case $b in wide-syn-*|wide-orig-*|abbrev-*|spider200-*) ;; *) continue;; esac
  case $b in *single_shot*) continue;; esac
  h=$(md5sum $f | cut -c1-32); [ -n "${seen[$h]}" ] && continue; seen[$h]=1
  case $b in abbrev*) D=${WIDE_ABBREV:-/tmp/WIDE_ABBREV};; spider200*) D=data/spider-dev;; *) D=../shared/benchmarks/spider-wide;; esac
  .venv/bin/python scripts/replay_cascade.py --spider $D --per-step --agree 2 --steps $STEP $f > $OUT/$(basename $(dirname $f))__$b.txt 2>/dev/null
done
