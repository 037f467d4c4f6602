"""Scripted reject-only review of the onboarding drafts: reject the model's metric/rule records, approve the rest."""
from collections import Counter
from pathlib import Path

from records.review import review_drafts
from retrieval.onboarding.queue import review_queue

kp = Path("/work/runs/bare/markets.knowledge.yaml")
ep = Path("/work/runs/bare/markets.enriched.yaml")
items = review_queue({"columns": {}, "tables": {}}, knowledge_path=kp if kp.exists() else None, enriched_path=ep)
rej = [i for i in items if i.kind == "record" and i.provenance == "llm"]
app = [i for i in items if i not in rej]
print("queue", len(items), "reject", len(rej), "approve", len(app), "enriched", ep)
print(Counter((i.kind, i.type, i.provenance) for i in items))
review_drafts(rej, "rejected", knowledge_path=kp, enriched_path=ep)
review_drafts(app, "approved", knowledge_path=kp, enriched_path=ep)
