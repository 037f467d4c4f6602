"""Model-free reach of opaque-table links: of abbreviated questions whose gold reads an opaque table, how many get an
unnamed term at all (the link call's input), over every table of the database.

    python reach.py CHECKOUT_OF_c658048 WIDE_ABBREV     # the first 1,500 questions of a seed-0 shuffle
"""
import json, re, sys, random
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from database.connection import Database
from database.schema_reader import read_schema
from tools.question_terms import unnamed_terms, opaque_columns
from tools.opaque_tables import opaque_tables
root = Path(sys.argv[2]); qs = json.load(open(root / 'dev.json'))
random.Random(0).shuffle(qs); qs = qs[:1500]
cache = {}
stats = dict(n=0, gold_t=0, term=0, call_before=0, call_now=0)
for q in qs:
    db = q['db_id']
    if db not in cache:
        f = next((root / 'database' / db).glob('*.sqlite'))
        cache[db] = read_schema(Database(f'sqlite:///{f}'), sample_rows=0)
    tabs = cache[db]; stats['n'] += 1
    dark = {t.name.lower() for t in opaque_tables(tabs)}
    reads = {m.lower() for m in re.findall(r'\bt_\d+\b', q['query'], re.I)}
    terms = unnamed_terms(q['question'], tabs)
    has_oc = bool(opaque_columns(tabs))
    if terms and has_oc: stats['call_before'] += 1
    if terms and (has_oc or dark): stats['call_now'] += 1
    if reads & dark:
        stats['gold_t'] += 1; stats['term'] += bool(terms)
print(stats)
