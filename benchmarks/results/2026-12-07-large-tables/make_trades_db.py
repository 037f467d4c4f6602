"""A synthetic 2-million-row trades table beside 200,000 clients (seed 1), written to the path given.

    python make_trades_db.py big.sqlite

High-cardinality text (a 20-character note per trade) is what makes ``COUNT(DISTINCT)`` over the whole table
slow; the grown wide-benchmark copies of ``scripts/bench_large_tables.py`` keep their text values as stored.
"""

import random
import sqlite3
import string
import sys

random.seed(1)
conn = sqlite3.connect(sys.argv[1])
conn.execute("CREATE TABLE clients (client_id INTEGER PRIMARY KEY, client_name TEXT, city TEXT, segment TEXT, "
             "onboarded TEXT)")
conn.execute("CREATE TABLE trades (trade_id INTEGER PRIMARY KEY, client_id INTEGER REFERENCES clients(client_id), "
             "ticker TEXT, side TEXT, qty INTEGER, px REAL, trade_dt TEXT, desk TEXT, note TEXT)")
word = lambda n: "".join(random.choices(string.ascii_lowercase, k=n)).title()  # noqa: E731
cities = [word(7) for _ in range(800)]
conn.executemany("INSERT INTO clients VALUES (?, ?, ?, ?, ?)",
                 [(i, word(6) + " " + word(8), random.choice(cities),
                   random.choice(["Retail", "Institutional", "Private", "Corporate"]),
                   f"20{random.randint(10, 24)}-{random.randint(1, 12):02d}-{random.randint(1, 28):02d}")
                  for i in range(200_000)])
tickers = ["".join(random.choices(string.ascii_uppercase, k=4)) for _ in range(3000)]
conn.executemany("INSERT INTO trades VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 ((i, random.randint(0, 199_999), random.choice(tickers), random.choice("BS"),
                   random.randint(1, 10_000), round(random.uniform(1, 500), 2),
                   f"202{random.randint(0, 5)}-{random.randint(1, 12):02d}-{random.randint(1, 28):02d}",
                   random.choice(["EQ", "FI", "FX", "CMD", "DER"]),
                   "".join(random.choices(string.ascii_lowercase + " ", k=20))) for i in range(2_000_000)))
conn.commit()
