#!/bin/bash
# Run from the repository root: WIDE_ABBREV=/path/to/abbreviated/copies bash THIS_FOLDER/replay_all.sh
OUT=$(dirname "$0")
R=benchmarks/results
A=${WIDE_ABBREV:?set WIDE_ABBREV to the abbreviated copies}; W=../shared/benchmarks/spider-wide; D=data/spider-dev
while read folder file; do
  name=$(basename $file .jsonl)
  .venv/bin/python scripts/replay_cascade.py --spider $folder --agree 2 --per-step --steps respell_tables,join_linked_owners,swap_lacking_tables $R/$file > "$OUT/replay-$name.txt" 2>/dev/null
done <<LIST
$A 2026-12-05-negation-and-age-steps/abbrev-no_examples-e5fce1e-first134.jsonl
$A 2026-12-05-column-choice/abbrev-no_examples-7d03b9f-seed2027.jsonl
$A 2026-12-05-opaque-links-held-back/abbrev-no_examples-578c8b9-seed2028-links71.jsonl
$A 2026-12-06-opaque-value-hints/abbrev-no_examples-4e48ca4-hints-on-seed2031-90.jsonl
$A 2026-12-06-term-checks/abbrev-no_examples-4817035-seed2034-100.jsonl
$A 2026-12-06-opaque-table-roles/abbrev-no_examples-cc661aa-seed2036-opaque-tables.jsonl
$A 2026-12-04-abbrev-first134-1505a8b/abbrev-with_examples-1505a8b-first100.jsonl
$A 2026-12-05-unread-terms/abbrev-with_examples-7172360-seed2029-links79.jsonl
$A 2026-12-05-unread-terms/abbrev-with_examples-7172360-seed2030-links49.jsonl
$W 2026-12-05-column-choice/wide-orig-no_examples-7d03b9f-seed2027.jsonl
$W 2026-12-06-gap-and-unreviewed-drafts/wide-orig-no_examples-fea95c7-seed2031-130.jsonl
$W 2026-12-06-opaque-table-roles/wide-orig-no_examples-24fd6d2-seed2034-first62.jsonl
$W 2026-12-05-onboarding-drafts-vs-original/wide-orig-no_examples-2e1a2e6-first134.jsonl
$W 2026-11-29-abbrev-and-original-13438af/wide-orig-with_examples-13438af-first138.jsonl
$W 2026-12-06-cached-tokens-demo-latency/wide-syn-with_examples-db31ad7-first149.jsonl
$W 2026-12-06-cached-tokens-demo-latency/wide-syn-with_examples-ac1ab33-rest81.jsonl
$D 2026-11-29-spider200-a546481/spider200-with_examples-a546481.jsonl
LIST

