"""Well-known listed companies seeded into the synthetic ``markets`` database.

Tickers, names, sectors, listing venues and ISIN stems follow the real issuers; the ISIN check digit is always
recomputed, listing dates are approximate and the prices generated for them are synthetic (a random walk
pinned to a rough start and end level, in the listing currency). Nothing here is investment data.
"""

from __future__ import annotations

from typing import NamedTuple


class RealCo(NamedTuple):
    """A real issuer seeded into the ``markets`` database.

    Fields: ticker, name, GICS sector code, listing MIC, issuer country, first 11 ISIN characters, listing
    date, price on the first and last simulated day, shares outstanding (millions), dividend yield.
    """

    ticker: str
    name: str
    sector: int
    mic: str
    country: str
    isin11: str
    listed: str
    px0: float
    px1: float
    shares_mn: float
    div_yield: float


def _c(
    t: str, n: str, s: int, m: str, c: str, i: str, d: str, p0: float, p1: float, sh: float, y: float
) -> RealCo:
    return RealCo(t, n, s, m, c, i, d, p0, p1, sh, y)


# fmt: off
REAL_COMPANIES: list[RealCo] = [
    # --- Nasdaq (USD)
    _c("AAPL", "Apple Inc.", 45, "XNAS", "US", "US037833100", "1980-12-12", 125.0, 270.4, 14900, 0.005),
    _c("MSFT", "Microsoft Corporation", 45, "XNAS", "US", "US594918104", "1986-03-13", 240.0, 517.8, 7430, 0.008),
    _c("NVDA", "NVIDIA Corporation", 45, "XNAS", "US", "US67066G104", "1999-01-22", 14.6, 202.5, 24300, 0.0003),
    _c("AMZN", "Amazon.com, Inc.", 25, "XNAS", "US", "US023135106", "1997-05-15", 85.0, 244.2, 10650, 0.0),
    _c("GOOGL", "Alphabet Inc.", 50, "XNAS", "US", "US02079K305", "2004-08-19", 89.0, 281.2, 5800, 0.003),
    _c("META", "Meta Platforms, Inc.", 50, "XNAS", "US", "US30303M102", "2012-05-18", 124.0, 648.4, 2520, 0.003),
    _c("TSLA", "Tesla, Inc.", 25, "XNAS", "US", "US88160R101", "2010-06-29", 108.0, 456.6, 3220, 0.0),
    _c("AVGO", "Broadcom Inc.", 45, "XNAS", "US", "US11135F101", "2009-08-06", 56.0, 329.9, 4700, 0.012),
    _c("COST", "Costco Wholesale Corporation", 30, "XNAS", "US", "US22160K105", "1985-12-05", 456.0, 911.0, 443, 0.006),
    _c("NFLX", "Netflix, Inc.", 50, "XNAS", "US", "US64110L106", "2002-05-23", 295.0, 1100.0, 425, 0.0),
    _c("ADBE", "Adobe Inc.", 45, "XNAS", "US", "US00724F101", "1986-08-20", 336.0, 352.0, 425, 0.0),
    _c("PEP", "PepsiCo, Inc.", 30, "XNAS", "US", "US713448108", "1972-06-01", 181.0, 145.0, 1370, 0.033),
    _c("CSCO", "Cisco Systems, Inc.", 45, "XNAS", "US", "US17275R102", "1990-02-16", 47.6, 73.1, 3950, 0.028),
    _c("INTC", "Intel Corporation", 45, "XNAS", "US", "US458140100", "1971-10-13", 26.4, 40.2, 4370, 0.012),
    _c("AMD", "Advanced Micro Devices, Inc.", 45, "XNAS", "US", "US007903107", "1972-09-27", 64.8, 256.1, 1620, 0.0),
    _c("QCOM", "QUALCOMM Incorporated", 45, "XNAS", "US", "US747525103", "1991-12-13", 110.0, 181.0, 1090, 0.02),
    _c("LIN", "Linde plc", 15, "XNAS", "IE", "IE000S9YS76", "2023-03-01", 350.0, 470.0, 476, 0.012),
    # --- New York Stock Exchange (USD)
    _c("JPM", "JPMorgan Chase & Co.", 40, "XNYS", "US", "US46625H100", "1969-03-05", 134.0, 311.1, 2750, 0.021),
    _c("V", "Visa Inc.", 40, "XNYS", "US", "US92826C839", "2008-03-19", 208.0, 341.0, 1940, 0.007),
    _c("MA", "Mastercard Incorporated", 40, "XNYS", "US", "US57636Q104", "2006-05-25", 348.0, 552.0, 905, 0.005),
    _c("BAC", "Bank of America Corporation", 40, "XNYS", "US", "US060505104", "1973-01-02", 33.0, 53.4, 7500, 0.021),
    _c("GS", "The Goldman Sachs Group, Inc.", 40, "XNYS", "US", "US38141G104", "1999-05-04", 343.0, 788.0, 305, 0.02),
    _c("MS", "Morgan Stanley", 40, "XNYS", "US", "US617446448", "1993-02-23", 85.0, 163.9, 1600, 0.025),
    _c("JNJ", "Johnson & Johnson", 35, "XNYS", "US", "US478160104", "1944-09-25", 177.0, 188.9, 2410, 0.028),
    _c("UNH", "UnitedHealth Group Incorporated", 35, "XNYS", "US", "US91324P102", "1984-10-17", 530.0, 341.6, 905, 0.018),
    _c("LLY", "Eli Lilly and Company", 35, "XNYS", "US", "US532457108", "1970-07-09", 366.0, 862.9, 897, 0.007),
    _c("PFE", "Pfizer Inc.", 35, "XNYS", "US", "US717081103", "1944-01-03", 51.0, 24.6, 5680, 0.065),
    _c("MRK", "Merck & Co., Inc.", 35, "XNYS", "US", "US58933Y105", "1946-06-03", 111.0, 86.0, 2500, 0.035),
    _c("XOM", "Exxon Mobil Corporation", 10, "XNYS", "US", "US30231G102", "1972-01-03", 110.0, 114.4, 4260, 0.035),
    _c("CVX", "Chevron Corporation", 10, "XNYS", "US", "US166764100", "1972-01-03", 179.0, 156.9, 2000, 0.042),
    _c("PG", "The Procter & Gamble Company", 30, "XNYS", "US", "US742718109", "1950-01-03", 152.0, 150.3, 2340, 0.026),
    _c("KO", "The Coca-Cola Company", 30, "XNYS", "US", "US191216100", "1919-09-05", 63.6, 69.0, 4300, 0.029),
    _c("MCD", "McDonald's Corporation", 25, "XNYS", "US", "US580135101", "1966-07-05", 264.0, 299.9, 714, 0.023),
    _c("HD", "The Home Depot, Inc.", 25, "XNYS", "US", "US437076102", "1981-09-22", 316.0, 379.6, 995, 0.024),
    _c("NKE", "NIKE, Inc.", 25, "XNYS", "US", "US654106103", "1980-12-02", 117.0, 64.3, 1480, 0.022),
    _c("DIS", "The Walt Disney Company", 50, "XNYS", "US", "US254687106", "1957-11-12", 87.0, 112.6, 1800, 0.008),
    _c("T", "AT&T Inc.", 50, "XNYS", "US", "US00206R102", "1984-01-03", 18.4, 24.7, 7160, 0.045),
    _c("IBM", "International Business Machines Corporation", 45, "XNYS", "US", "US459200101", "1962-01-02",
       141.0, 307.4, 930, 0.03),
    _c("ORCL", "Oracle Corporation", 45, "XNYS", "US", "US68389X105", "1986-03-12", 82.0, 257.9, 2810, 0.01),
    _c("CRM", "Salesforce, Inc.", 45, "XNYS", "US", "US79466L302", "2004-06-23", 133.0, 260.4, 955, 0.006),
    _c("CAT", "Caterpillar Inc.", 20, "XNYS", "US", "US149123101", "1929-12-02", 240.0, 583.1, 468, 0.015),
    _c("BA", "The Boeing Company", 20, "XNYS", "US", "US097023105", "1962-01-02", 190.0, 216.0, 756, 0.0),
    _c("NEE", "NextEra Energy, Inc.", 55, "XNYS", "US", "US65339F101", "1950-01-03", 84.0, 81.4, 2060, 0.028),
    _c("PLD", "Prologis, Inc.", 60, "XNYS", "US", "US74340W103", "1997-11-21", 113.0, 125.2, 927, 0.031),
    _c("AMT", "American Tower Corporation", 60, "XNYS", "US", "US03027X100", "1998-02-27", 212.0, 179.9, 467, 0.033),
    # --- London Stock Exchange (GBP, quoted in pounds)
    _c("SHEL", "Shell plc", 10, "XLON", "GB", "GB00BP6MXD8", "2022-01-31", 23.5, 27.6, 6000, 0.04),
    _c("AZN", "AstraZeneca PLC", 35, "XLON", "GB", "GB000989529", "1993-05-17", 112.0, 126.0, 1550, 0.02),
    _c("HSBA", "HSBC Holdings plc", 40, "XLON", "GB", "GB000540528", "1998-07-01", 5.2, 10.5, 17600, 0.06),
    _c("ULVR", "Unilever PLC", 30, "XLON", "GB", "GB00B10RZP7", "1950-01-03", 41.8, 45.1, 2500, 0.035),
    _c("RIO", "Rio Tinto plc", 15, "XLON", "GB", "GB000718875", "1962-01-02", 58.0, 50.3, 1250, 0.06),
    _c("GSK", "GSK plc", 35, "XLON", "GB", "GB00BN7SWP6", "1972-06-01", 14.4, 16.5, 4100, 0.04),
    _c("BARC", "Barclays PLC", 40, "XLON", "GB", "GB003134865", "1970-01-02", 1.6, 3.9, 14400, 0.03),
    _c("LSEG", "London Stock Exchange Group plc", 40, "XLON", "GB", "GB00B0SWJX3", "2001-07-20", 72.0, 88.0, 530,
       0.015),
    _c("DGE", "Diageo plc", 30, "XLON", "GB", "GB000237400", "1997-12-17", 36.5, 18.0, 2220, 0.035),
    _c("REL", "RELX PLC", 20, "XLON", "GB", "GB00B2B0DG9", "1970-01-02", 23.0, 35.0, 1860, 0.018),
    # --- Euronext Paris (EUR)
    _c("MC", "LVMH Moet Hennessy Louis Vuitton SE", 25, "XPAR", "FR", "FR000012101", "1987-06-03", 680.0, 620.0,
       500, 0.02),
    _c("TTE", "TotalEnergies SE", 10, "XPAR", "FR", "FR000012027", "1991-10-15", 58.7, 53.0, 2250, 0.055),
    _c("SAN", "Sanofi", 35, "XPAR", "FR", "FR000012057", "1999-08-20", 90.0, 86.5, 1230, 0.042),
    _c("OR", "L'Oreal S.A.", 30, "XPAR", "FR", "FR000012032", "1963-01-02", 333.0, 370.0, 534, 0.018),
    _c("AIR", "Airbus SE", 20, "XPAR", "NL", "NL000023519", "2000-07-10", 111.0, 210.0, 790, 0.015),
    _c("BNP", "BNP Paribas SA", 40, "XPAR", "FR", "FR000013110", "1993-10-18", 53.0, 73.0, 1130, 0.065),
    _c("SU", "Schneider Electric SE", 20, "XPAR", "FR", "FR000012197", "1970-01-02", 131.0, 240.0, 570, 0.016),
    _c("RMS", "Hermes International", 25, "XPAR", "FR", "FR000005229", "1993-06-03", 1445.0, 2150.0, 105, 0.007),
    # --- Xetra (EUR)
    _c("SAP", "SAP SE", 45, "XETR", "DE", "DE000716460", "1988-11-04", 96.0, 230.0, 1170, 0.01),
    _c("SIE", "Siemens AG", 20, "XETR", "DE", "DE000723610", "1970-01-02", 130.0, 235.0, 790, 0.022),
    _c("ALV", "Allianz SE", 40, "XETR", "DE", "DE000840400", "1970-01-02", 201.0, 345.0, 390, 0.045),
    _c("DTE", "Deutsche Telekom AG", 50, "XETR", "DE", "DE000555750", "1996-11-18", 18.6, 27.0, 4980, 0.03),
    _c("BAS", "BASF SE", 15, "XETR", "DE", "DE000BASF11", "1970-01-02", 46.0, 43.0, 893, 0.07),
    _c("MBG", "Mercedes-Benz Group AG", 25, "XETR", "DE", "DE000710000", "1998-11-17", 61.0, 55.0, 960, 0.075),
    # --- Euronext Amsterdam (EUR)
    _c("ASML", "ASML Holding N.V.", 45, "XAMS", "NL", "NL001027321", "1995-03-15", 505.0, 900.0, 390, 0.008),
    _c("PHIA", "Koninklijke Philips N.V.", 35, "XAMS", "NL", "NL000000953", "1970-01-02", 14.0, 23.5, 950, 0.035),
    _c("HEIA", "Heineken N.V.", 30, "XAMS", "NL", "NL000000916", "1970-01-02", 88.0, 68.0, 560, 0.025),
    _c("INGA", "ING Groep N.V.", 40, "XAMS", "NL", "NL001182120", "1997-06-02", 11.4, 21.5, 3000, 0.065),
    _c("ADYEN", "Adyen N.V.", 40, "XAMS", "NL", "NL001296918", "2018-06-13", 1300.0, 1400.0, 31, 0.0),
    # --- SIX Swiss Exchange (CHF)
    _c("NESN", "Nestle S.A.", 30, "XSWX", "CH", "CH003886335", "1970-01-02", 107.0, 82.0, 2580, 0.035),
    _c("NOVN", "Novartis AG", 35, "XSWX", "CH", "CH001200526", "1996-12-20", 83.0, 100.0, 1950, 0.035),
    _c("ROG", "Roche Holding AG", 35, "XSWX", "CH", "CH001203204", "1970-01-02", 290.0, 260.0, 700, 0.035),
    _c("UBSG", "UBS Group AG", 40, "XSWX", "CH", "CH024476758", "2014-11-28", 17.3, 30.5, 3200, 0.02),
    _c("ABBN", "ABB Ltd", 20, "XSWX", "CH", "CH001222171", "1999-06-28", 28.0, 58.0, 1850, 0.016),
    # --- Tokyo Stock Exchange (JPY)
    _c("7203", "Toyota Motor Corporation", 25, "XTKS", "JP", "JP363340000", "1949-05-16", 1800.0, 2900.0, 15800,
       0.028),
    _c("6758", "Sony Group Corporation", 25, "XTKS", "JP", "JP343500000", "1958-12-01", 2000.0, 4300.0, 6150, 0.005),
    _c("7974", "Nintendo Co., Ltd.", 50, "XTKS", "JP", "JP375660000", "1962-01-04", 5500.0, 13000.0, 1300, 0.015),
    _c("9984", "SoftBank Group Corp.", 50, "XTKS", "JP", "JP343610000", "1994-07-22", 5700.0, 22000.0, 1470, 0.003),
    _c("6861", "Keyence Corporation", 45, "XTKS", "JP", "JP323620000", "1987-10-01", 51000.0, 55000.0, 243, 0.006),
    _c("8306", "Mitsubishi UFJ Financial Group, Inc.", 40, "XTKS", "JP", "JP390290000", "2001-04-02", 890.0,
       2400.0, 12000, 0.03),
    _c("9983", "Fast Retailing Co., Ltd.", 25, "XTKS", "JP", "JP380230000", "1994-07-14", 26700.0, 54000.0, 306,
       0.008),
    _c("8035", "Tokyo Electron Limited", 45, "XTKS", "JP", "JP357140000", "1980-10-01", 13000.0, 33000.0, 460,
       0.015),
    # --- Hong Kong Exchanges and Clearing (HKD)
    _c("0700", "Tencent Holdings Limited", 50, "XHKG", "KY", "KYG87572163", "2004-06-16", 330.0, 640.0, 9200, 0.007),
    _c("9988", "Alibaba Group Holding Limited", 25, "XHKG", "KY", "KYG01719114", "2019-11-26", 86.0, 165.0, 19000,
       0.008),
    _c("1299", "AIA Group Limited", 40, "XHKG", "HK", "HK000006968", "2010-10-29", 87.0, 75.0, 10700, 0.025),
    _c("0941", "China Mobile Limited", 50, "XHKG", "HK", "HK094100953", "1997-10-23", 52.0, 85.0, 21500, 0.065),
    _c("0388", "Hong Kong Exchanges and Clearing Limited", 40, "XHKG", "HK", "HK038804544", "2000-06-27", 340.0,
       420.0, 1268, 0.028),
    # --- Toronto Stock Exchange (CAD)
    _c("RY", "Royal Bank of Canada", 40, "XTSE", "CA", "CA780087102", "1970-01-02", 128.0, 200.0, 1410, 0.035),
    _c("TD", "The Toronto-Dominion Bank", 40, "XTSE", "CA", "CA891160509", "1970-01-02", 88.0, 110.0, 1740, 0.045),
    _c("SHOP", "Shopify Inc.", 45, "XTSE", "CA", "CA82509L107", "2015-05-21", 47.0, 240.0, 1300, 0.0),
    _c("ENB", "Enbridge Inc.", 10, "XTSE", "CA", "CA29250N105", "1970-01-02", 53.0, 66.0, 2180, 0.06),
    _c("CNR", "Canadian National Railway Company", 20, "XTSE", "CA", "CA136375102", "1995-11-17", 161.0, 135.0,
       628, 0.022),
    # --- Australian Securities Exchange (AUD)
    _c("BHP", "BHP Group Limited", 15, "XASX", "AU", "AU000000BHP", "1970-01-02", 46.0, 40.0, 5070, 0.05),
    _c("CBA", "Commonwealth Bank of Australia", 40, "XASX", "AU", "AU000000CBA", "1991-09-12", 103.0, 170.0, 1670,
       0.03),
    _c("CSL", "CSL Limited", 35, "XASX", "AU", "AU000000CSL", "1994-06-02", 288.0, 190.0, 484, 0.015),
    _c("WBC", "Westpac Banking Corporation", 40, "XASX", "AU", "AU000000WBC", "1970-01-02", 23.0, 38.0, 3440, 0.045),
]

# Syllables combined into invented issuer names for the synthetic part of the universe.
NAME_HEADS: list[str] = [
    "Al", "Bel", "Cor", "Dra", "El", "Fen", "Gal", "Hal", "Ist", "Jun", "Kel", "Lum", "Mar", "Nor", "Ol",
    "Pra", "Quin", "Ros", "Sol", "Tor", "Ul", "Ver", "Wes", "Yar", "Zen", "Ash", "Bram", "Cal", "Dun", "Ever",
]
NAME_TAILS: list[str] = [
    "vane", "crest", "wick", "ford", "mont", "brook", "dale", "stone", "haven", "ridge", "field", "gate",
]

# Business words per GICS sector code for synthetic names.
SECTOR_WORDS: dict[int, list[str]] = {
    10: ["Energy", "Petroleum", "Oil & Gas", "Resources"],
    15: ["Materials", "Chemicals", "Mining", "Metals"],
    20: ["Industries", "Aerospace", "Logistics", "Engineering"],
    25: ["Motors", "Retail", "Brands", "Leisure"],
    30: ["Foods", "Beverages", "Consumer Products", "Grocers"],
    35: ["Pharmaceuticals", "Therapeutics", "Medical", "Biosciences"],
    40: ["Financial", "Bancorp", "Capital", "Insurance"],
    45: ["Technologies", "Semiconductor", "Software", "Systems"],
    50: ["Media", "Communications", "Interactive", "Telecom"],
    55: ["Utilities", "Power", "Water", "Electric"],
    60: ["Realty", "Properties", "REIT", "Land"],
}

# Legal-form suffix and number of synthetic issuers per listing MIC.
LEGAL_SUFFIX: dict[str, str] = {
    "XNYS": "Inc.", "XNAS": "Inc.", "XTSE": "Inc.", "XLON": "plc", "XPAR": "SA", "XETR": "AG",
    "XAMS": "N.V.", "XSWX": "AG", "XTKS": "Co., Ltd.", "XHKG": "Holdings Limited", "XASX": "Limited",
}
SYNTHETIC_COUNT: dict[str, int] = {
    "XNYS": 22, "XNAS": 22, "XTSE": 8, "XLON": 14, "XPAR": 10, "XETR": 10, "XAMS": 5, "XSWX": 6,
    "XTKS": 16, "XHKG": 8, "XASX": 8,
}
# fmt: on
