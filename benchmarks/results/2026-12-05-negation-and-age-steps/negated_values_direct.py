import json,glob,re,hashlib,os,sys
sys.path.insert(0,'.')
import sqlglot
from sqlglot import exp
from rewrites.negated_joins import negates, negated_comparisons, _conjuncts, _constant, _number
from scripts.replay_pruning import score
from database.connection import Database
def dbdir(b):
    if b.startswith('abbrev'): return '/tmp/WIDE_ABBREV/database'
    if b.startswith('spider200'): return 'data/spider-dev/database'
    return '../shared/benchmarks/spider-wide/database'
def rewrite(sql, q, db):
    try: t=sqlglot.parse_one(sql,read='sqlite')
    except Exception: return None
    if not isinstance(t,exp.Select) or t.args.get('joins') or any(t.args.get(k) for k in ('group','having','with','limit')): return None
    src=t.args.get('from_') or t.args.get('from')
    if not src or not isinstance(src.this,exp.Table): return None
    if not t.args.get('where'): return None
    conds=_conjuncts(t.args['where'].this)
    stated=negated_comparisons(q)
    tests=[]
    for c in conds:
        if isinstance(c,exp.NEQ) and isinstance(c.left,exp.Column) and _constant(c.right):
            tests.append((c,exp.EQ(this=c.left.copy(),expression=c.right.copy())))
        elif isinstance(c,(exp.GT,exp.GTE,exp.LT,exp.LTE)) and isinstance(c.left,exp.Column):
            v=_number(c.right); ops=[op for op,n in stated if n==v]
            if v is not None and len(ops)==1: tests.append((c,ops[0](this=c.left.copy(),expression=c.right.copy())))
    if len(tests)!=1: return None
    if any(isinstance(e,exp.Star) or e.find(exp.AggFunc) for e in t.expressions): return None
    cols=[e for e in t.expressions if isinstance(e,exp.Column)]
    if len(cols)!=len(t.expressions): return None
    # selected values repeat in the table
    tab=src.this.sql('sqlite'); sel=", ".join(c.sql('sqlite') for c in cols)
    r=db.run_query(f"SELECT COUNT(*) - COUNT(DISTINCT {sel}) FROM {tab}") if len(cols)==1 else None
    if r is None or not r.ok or not r.rows or not r.rows[0][0]: return None
    c,inner=tests[0]
    rest=[x for x in conds if x is not c]
    a=t.copy(); a.set('distinct',None)
    a.set('where', exp.Where(this=exp.and_(*[x.copy() for x in rest])) if rest else None)
    b=t.copy(); b.set('distinct',None); b.set('where',exp.Where(this=inner))
    return f"{a.sql('sqlite')} EXCEPT {b.sql('sqlite')}"
HAVE=re.compile(r"\b(?:(?:do|does|did)\s+not|(?:do|does|did)n't|never)\s+(?:have|has|had|own|hold|contain|include)\b|\bwithout\b",re.I)
seen=set(); tot=dict(fired=0,won=0,lost=0); qs={}
dbs={}
for f in sorted(glob.glob('benchmarks/results/*/*.jsonl')):
    b=os.path.basename(f)
    if not re.match(r'(wide-syn|wide-orig|abbrev|spider200)-',b) or 'single' in b: continue
    h=hashlib.md5(open(f,'rb').read()).hexdigest()
    if h in seen: continue
    seen.add(h)
    for x in map(json.loads,open(f)):
        if 'question' not in x or not x.get('pred_sql') or not HAVE.search(x['question']): continue
        p=f"{dbdir(b)}/{x['db_id']}/{x['db_id']}.sqlite"
        db=dbs.setdefault(p,Database('sqlite:///'+os.path.abspath(p)))
        new=rewrite(x['pred_sql'],x['question'],db)
        if not new: continue
        tot['fired']+=1
        s=score(db,x['gold_sql'],new)[0]
        if s!=x['ex']:
            tot['won' if s else 'lost']+=1; qs.setdefault((x['qid'],s),0); qs[(x['qid'],s)]+=1
            print(b[:25],x['qid'],x['ex'],'->',s,x['question'][:80],'|',x['pred_sql'][:80],'=>',new[:120])
print(tot,qs)
