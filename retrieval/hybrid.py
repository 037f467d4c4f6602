"""Lexical side of hybrid table retrieval: identifier-aware tokenizer, BM25 per database, rank fusion.

Dense embeddings (MiniLM) match meaning but are weak on cryptic identifiers (``PX_LST``, ``EQ_MSTR``); BM25
(Robertson & Zaragoza, 2009; ``rank_bm25.BM25Okapi``) over tokens that split such names into their parts matches
them literally. A question word the schema does not spell out also matches the name parts that may abbreviate
it (``customer`` -> ``CSTMR``, ``detention`` -> ``DTNTN``; :mod:`retrieval.term_expansion`, generic rules, no
dictionary), at half weight; tables scoring under a tenth of the best BM25 score are left out of its ranking.
The two rankings are merged with reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009):
``score(t) = sum over rankings of 1 / (RRF_K + rank(t))`` with 1-based ranks and ``RRF_K = 60``.

:class:`TableCatalog` holds, per database, everything table retrieval needs besides the vector search: table
names, their description and schema documents, columns, the FK join graph and the BM25 model. It is built from
the store (two ``get`` calls) and cached in memory per ``(store, db_key, index snapshot id)``, so a re-index
invalidates it and queries never re-tokenize the corpus.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from rank_bm25 import BM25Okapi

from database.joins import JoinGraph, join_graph
from retrieval.manifest import snapshot_id
from retrieval.store import DESCRIPTION_INDEX, SCHEMAS_INDEX, VectorStore
from retrieval.term_expansion import TermExpander

RRF_K = 60
"""Reciprocal-rank-fusion constant (Cormack et al. 2009)."""

EXPANSION_WEIGHT = 0.5
"""Weight of a name part found as an abbreviation of a question word (:mod:`retrieval.term_expansion`) in the
BM25 score, against 1 for a word the documents hold as written."""

LEXICAL_FLOOR = 0.1
"""A table enters the BM25 ranking only with at least this share of the best table's score: a stray common
word or name part is no lexical evidence, and as a low rank of its own it would still take reciprocal-rank-fusion
credit from tables the question names."""

CACHE_SIZE = 16
"""Catalogs kept in memory (least recently used are evicted)."""

STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "had", "has",
    "have", "how", "i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "per", "show", "that",
    "the", "their", "them", "there", "these", "this", "those", "to", "was", "were", "what", "when",
    "where", "which", "who", "whom", "whose", "why", "will", "with", "list", "give", "find", "tell", "all",
    "each", "every", "than", "then",
})
_WORD = re.compile(r"[A-Za-z0-9_]+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _stem(token: str) -> str:
    """Tiny plural folding (``prices`` -> ``price``, ``companies`` -> ``company``), same on both sides."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Lower-cased BM25 tokens of ``text``: every word whole and, for compound identifiers, also its parts.

    ``snake_case``, ``CamelCase`` and letter/digit boundaries split: ``"EQ_PX_D.PX_LST"`` gives
    ``["eq_px_d", "eq", "px", "d", "px_lst", "px", "lst"]``; ``"CustomerId"`` gives
    ``["customerid", "customer", "id"]``. English stopwords and one-letter words (except as parts) are dropped;
    plurals are folded (:func:`_stem`).
    """
    out: list[str] = []
    for raw in _WORD.findall(text):
        whole = raw.strip("_").lower()
        parts = [p.lower() for piece in raw.split("_") for p in _PART.findall(piece)]
        if len(whole) > 1 and whole not in STOPWORDS:
            out.append(_stem(whole))
        if len(parts) > 1:
            out.extend(_stem(p) for p in parts if p not in STOPWORDS)
    return out


def rrf_fuse(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of best-first rankings (Cormack, Clarke & Buettcher, SIGIR 2009).

    Args:
        rankings: lists of item ids, best first; an item may be absent from some lists.
        k: the RRF constant (60 in the paper).

    Returns:
        ``(item, score)`` best first, ``score = sum(1 / (k + rank))`` with 1-based ranks. Ties go to the item
        with the better best rank, then to the earlier ranking's order.
    """
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    for li, ranking in enumerate(rankings):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            best[item] = min(best.get(item, (rank, li)), (rank, li))
    return sorted(scores.items(), key=lambda kv: (-kv[1], best[kv[0]]))


def _parse_fk_line(description: str) -> list[tuple[str, str]]:
    """FKs from a description document's ``Foreign keys: c -> T.r, c2 -> T.r2; ...`` line (old indexes)."""
    for line in description.splitlines():
        if line.startswith("Foreign keys:"):
            fks = []
            for fk in line.removeprefix("Foreign keys:").split(";"):
                pairs = [p.split("->", 1) for p in fk.split(",") if "->" in p]
                if pairs:
                    cols = ",".join(c.strip() for c, _ in pairs)
                    table, _, first = pairs[0][1].strip().rpartition(".")
                    refs = [first] + [r.strip().rpartition(".")[2] for _, r in pairs[1:]]
                    fks.append((cols, f"{table}.{','.join(refs)}"))
            return fks
    return []


@dataclass
class TableCatalog:
    """Per-database table data for retrieval (see the module docstring); built by :func:`load_catalog`.

    Attributes:
        db_key: the database key; ``snapshot``: its index snapshot id (None: not cacheable).
        names: table names in index order; ``descriptions`` / ``schemas``: their documents by name (a table
            without a schema document is absent from ``schemas``); ``columns``: column names by table (from
            metadata; empty for old indexes); ``graph``: FK join graph; ``bm25``: None when there are no tokens;
            ``expander``: the table and column name parts, for question words they may abbreviate.
    """

    db_key: str
    snapshot: str | None
    names: list[str]
    descriptions: dict[str, str]
    schemas: dict[str, str]
    columns: dict[str, list[str]] = field(default_factory=dict)
    graph: JoinGraph = field(default_factory=JoinGraph)
    bm25: BM25Okapi | None = None
    expander: TermExpander | None = None

    def primary_keys(self) -> dict[str, list[str]]:
        """Primary-key columns by lower-cased table name, from the description documents' ``Primary key:`` line."""
        keys = {}
        for name, doc in self.descriptions.items():
            for line in doc.splitlines():
                if line.startswith("Primary key:"):
                    keys[name.lower()] = [c.strip() for c in line.removeprefix("Primary key:").split(",") if c.strip()]
        return keys

    def schema_doc(self, name: str) -> str:
        """Schema document of ``name`` (falls back to its description document, then to "")."""
        return self.schemas.get(name) or self.descriptions.get(name, "")

    def query_terms(self, question: str) -> dict[str, float]:
        """BM25 query terms of ``question`` with their weights (``{term: weight}``).

        Its tokens the corpus holds (weight 1), then the name parts that abbreviate one of its tokens
        (:attr:`expander`; weight :data:`EXPANSION_WEIGHT`).
        """
        if self.bm25 is None:
            return {}
        tokens = list(dict.fromkeys(tokenize(question)))
        terms = {t: 1.0 for t in tokens if t in self.bm25.idf}
        if self.expander is not None:
            for part in self.expander.expand(tokens):
                if part in self.bm25.idf:
                    terms.setdefault(part, EXPANSION_WEIGHT)
        return terms

    def lexical_ranking(self, question: str, depth: int) -> list[tuple[str, float]]:
        """Up to ``depth`` ``(table, bm25_score)`` with a positive score, best first (ties: index order).

        The score is the weighted sum of each query term's BM25 score (:meth:`query_terms`); tables under
        :data:`LEXICAL_FLOOR` times the best score are left out.
        """
        terms = self.query_terms(question)
        if not terms or self.bm25 is None:
            return []
        scores = np.zeros(len(self.names))
        for term, weight in terms.items():
            scores += weight * self.bm25.get_scores([term])
        floor = LEXICAL_FLOOR * float(scores.max())
        order = sorted((i for i in range(len(self.names)) if scores[i] > 0 and scores[i] >= floor),
                       key=lambda i: (-scores[i], i))
        return [(self.names[i], float(scores[i])) for i in order[:depth]]


def lexical_text(description: str, schema: str) -> str:
    """What BM25 indexes for a table: its description document plus its schema document.

    The schema document is DDL with column comments and sample values, so column documentation such as
    "Last (closing) price" is searchable.
    """
    return f"{description}\n{schema}"


def build_catalog(store: VectorStore, db_key: str, snapshot: str | None = None) -> TableCatalog | None:
    """Read ``db_key``'s description and schema records and build its :class:`TableCatalog`.

    FK edges come from description metadata ``"fks"`` (JSON list of ``[columns, "REF_TABLE.REF_COLUMNS"]``),
    or, for indexes written before it existed, from the description document's ``Foreign keys`` line.

    Returns:
        None when ``db_key`` has no description records.
    """
    desc_hits = sorted(store.get(DESCRIPTION_INDEX, where={"db": db_key}), key=lambda h: h.id)
    if not desc_hits:
        return None
    names, descriptions, columns, fks = [], {}, {}, {}
    for hit in desc_hits:
        name = str(hit.metadata.get("table") or hit.id.removeprefix(f"{db_key}:"))
        names.append(name)
        descriptions[name] = hit.document
        raw_cols, raw_fks = hit.metadata.get("columns"), hit.metadata.get("fks")
        columns[name] = [str(c) for c in json.loads(raw_cols)] if isinstance(raw_cols, str) else []
        fks[name] = (
            [(str(c), str(r)) for c, r in json.loads(raw_fks)]
            if isinstance(raw_fks, str)
            else _parse_fk_line(hit.document)
        )
    by_id = {f"{db_key}:{n}": n for n in names}
    schemas = {
        by_id[h.id]: h.document for h in store.get(SCHEMAS_INDEX, where={"db": db_key}) if h.id in by_id
    }
    corpus = [tokenize(lexical_text(descriptions[n], schemas.get(n, ""))) for n in names]
    bm25 = BM25Okapi(corpus) if any(corpus) else None
    parts = [t for n in names for ident in (n, *columns[n]) for t in tokenize(ident)]
    return TableCatalog(db_key, snapshot, names, descriptions, schemas, columns, join_graph(fks), bm25,
                        TermExpander(parts))


_CACHE: OrderedDict[tuple[str, str, str], TableCatalog] = OrderedDict()
_LOCK = threading.Lock()


def load_catalog(store: VectorStore, db_key: str) -> TableCatalog | None:
    """The :class:`TableCatalog` of ``db_key``, from the in-memory cache when its snapshot id is unchanged.

    Cost on a cache hit: one manifest read (:func:`retrieval.manifest.snapshot_id`). Without a snapshot id
    (nothing indexed) the catalog is rebuilt and not cached.

    Returns:
        None when ``db_key`` is not indexed.
    """
    snap = snapshot_id(store, db_key)
    key = (str(getattr(store, "path", id(store))), db_key, snap or "")
    if snap is not None:
        with _LOCK:
            cached = _CACHE.get(key)
            if cached is not None:
                _CACHE.move_to_end(key)
                return cached
    catalog = build_catalog(store, db_key, snap)
    if catalog is not None and snap is not None:
        with _LOCK:
            _CACHE[key] = catalog
            while len(_CACHE) > CACHE_SIZE:
                _CACHE.popitem(last=False)
    return catalog

