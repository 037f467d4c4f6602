"""Keep the records where fix_negated_joins could fire on some candidate (negated question, a join, a <>)."""
import json, re, sys
sys.path.insert(0, '.')
from rewrites.negated_joins import negates
src, dst = sys.argv[1], sys.argv[2]
kept = total = 0
with open(dst, 'w') as out:
    for line in open(src):
        r = json.loads(line); total += 1
        sqls = [c.get('sql') or '' for c in r.get('candidates') or []]
        if negates(r.get('question') or '') and any(re.search(r'join', s, re.I) and ('<>' in s or '!=' in s) for s in sqls):
            out.write(line); kept += 1
print(f'{src}: kept {kept} of {total}')
