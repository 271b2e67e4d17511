#!/usr/bin/env python3
"""Writes betslip_vectors.json: the shared betslip arithmetic vectors.

An outside enumeration of the contract in docs/protocol.md ("Betslip
arithmetic"), written apart from both implementations (domain/src/bet/arith.rs
with settle.rs, web/src/features/betslip/arith.ts): Python's decimal, every
combination enumerated. Run it after changing a case; both suites read the
JSON (cargo test -p domain betslip_vectors, vitest arith.test.ts).
"""
import json
from decimal import Decimal as D, ROUND_DOWN, ROUND_HALF_UP, ROUND_CEILING
from itertools import combinations
from pathlib import Path

LIMIT = D("1000")


def money(x):
    return x.quantize(D("0.01"), rounding=ROUND_HALF_UP)


def odds3(x):
    return x.quantize(D("0.001"), rounding=ROUND_HALF_UP)


def better(p):
    p = D(p)
    if p < D("1.06"):
        return p
    r = p + (p - 1) / 10
    q = D("0.01") if r > 10 else D("0.001")
    return r.quantize(q, rounding=ROUND_CEILING).normalize()


def place(p, c):
    return odds3(1 + (p - 1) * D(c))


def plain(x):
    """A decimal as the wire writes it: no exponent, no trailing zeros."""
    s = format(x.normalize(), "f")
    return s


def chain_return(unit, prices):
    riding, banked = unit, D(0)
    for p in prices:
        back = money(riding * p)
        if back == 0:
            return banked
        riding = min(back, unit)
        banked += back - riding
    return banked + riding


def figures(case):
    t, amount, ew = case["type"], D(case["amount"]), case["each_way"]
    legs = case["legs"]
    prices = []
    for i, leg in enumerate(legs):
        if leg["price"] == "-1":
            prices.append(None)
        elif t == 1 and case.get("is_offer"):
            prices.append(better(leg["price"]))
        else:
            prices.append(D(leg["price"]))
    idx = list(range(len(legs)))
    if t == 3:
        bankers = [i for i in idx if legs[i].get("banker")]
        free = [i for i in idx if i not in bankers]
        combos = [sorted(bankers + list(c)) for c in combinations(free, case["sys_bet"] - len(bankers))]
    else:
        combos = [idx]
    lines = len(combos) * (2 if ew else 1)
    unit = (amount / lines).quantize(D("0.01"), rounding=ROUND_DOWN)
    stake = money(unit * lines)
    out = {"lines": lines, "unit_stake": str(unit), "stake": str(stake)}
    # the odds limit: every express line (express, system combination); not chains or singles
    if t in (2, 3):
        for c in combos:
            prod = D(1)
            for i in c:
                if prices[i] is not None:
                    prod *= prices[i]
            if prod > LIMIT:
                out["refused"] = "odds_limit"
                return out
    sp = any(p is None for p in prices)
    out["odds"] = None
    if t in (1, 2) and not sp:
        prod = D(1)
        for p in prices:
            prod *= p
        out["odds"] = plain(odds3(prod))
    if sp:
        out["possible_win"] = None
        return out
    parts = [prices]
    if ew:
        parts.append([place(p, legs[i]["ew_coeff"]) for i, p in enumerate(prices)])
    win = D(0)
    for ps in parts:
        for c in combos:
            if t == 4:
                win += chain_return(unit, [ps[i] for i in c])
            else:
                prod = D(1)
                for i in c:
                    prod *= ps[i]
                win += money(unit * prod)
    out["possible_win"] = str(money(win))
    return out


def leg(price, banker=False, ew=None):
    return {"price": price, "banker": banker, "ew_coeff": ew}


def slip(name, type_, amount, legs, each_way=False, sys_bet=None, is_offer=False):
    return {"name": name, "type": type_, "amount": amount, "each_way": each_way, "sys_bet": sys_bet,
            "is_offer": is_offer, "legs": legs}


SLIPS = [
    slip("single", 1, "10", [leg("2.5")]),
    slip("single: 1.5 x 89.05 is 133.58, not the float 133.57", 1, "89.05", [leg("1.5")]),
    slip("single on a long price: a single is not held to the odds limit", 1, "2", [leg("1500")]),
    slip("express of three", 2, "10", [leg("1.5"), leg("2.2"), leg("3.1")]),
    slip("express: the odds rounded to 3 places, the win from the exact product", 2, "7.77",
         [leg("1.333"), leg("1.777"), leg("2.111")]),
    slip("express over the odds limit", 2, "10", [leg("15"), leg("20"), leg("10")]),
    slip("express just at the odds limit", 2, "1", [leg("10"), leg("10"), leg("10")]),
    slip("each-way single: the amount is the total, halved into a win and a place part", 1, "10",
         [leg("5", ew="0.25")], each_way=True),
    slip("each-way single: an odd cent is not taken", 1, "10.01", [leg("5", ew="0.25")], each_way=True),
    slip("each-way single: place odds at 3 places", 1, "7", [leg("3.35", ew="0.2")], each_way=True),
    slip("each-way express", 2, "20", [leg("4", ew="0.2"), leg("6", ew="0.2")], each_way=True),
    slip("system 2 of 4: the stake split per line, rounded down", 3, "10",
         [leg("2"), leg("3"), leg("4"), leg("5")], sys_bet=2),
    slip("system 3 of 5", 3, "100", [leg("1.8"), leg("2.05"), leg("1.95"), leg("2.4"), leg("3.3")], sys_bet=3),
    slip("system with a banker", 3, "9", [leg("2", banker=True), leg("3"), leg("4"), leg("5")], sys_bet=3),
    slip("system: a small stake over 6 lines", 3, "1", [leg("1.7"), leg("1.9"), leg("2.3"), leg("2.9")], sys_bet=2),
    slip("system each-way", 3, "12", [leg("4", ew="0.25"), leg("5", ew="0.25"), leg("7", ew="0.25")],
         each_way=True, sys_bet=2),
    slip("system with one combination over the odds limit", 3, "10",
         [leg("40"), leg("30"), leg("2"), leg("1.5")], sys_bet=2),
    slip("chain: each leg's return funds the next up to the stake", 4, "10", [leg("2"), leg("2")]),
    slip("chain of three", 4, "10", [leg("1.5"), leg("3"), leg("2")]),
    slip("chain past 1000: a chain is not held to the odds limit", 4, "10", [leg("15"), leg("20"), leg("10")]),
    slip("better odds single", 1, "10", [leg("2")], is_offer=True),
    slip("better odds single: rounded up to 3 places", 1, "10", [leg("1.85")], is_offer=True),
    slip("better odds single above 10: rounded up to 2 places", 1, "5", [leg("9.201")], is_offer=True),
    slip("better odds: not below 1.06", 1, "100", [leg("1.05")], is_offer=True),
    slip("better odds on an express: ignored", 2, "10", [leg("2"), leg("3")], is_offer=True),
    slip("SP single: odds and win unknown", 1, "10", [leg("-1")]),
    slip("SP in an express: the known prices alone are held to the limit", 2, "10", [leg("-1"), leg("3")]),
]

BETTER = ["2", "1.85", "1.333", "1.06", "1.059", "1.05", "9.2", "9.201", "11.333", "12", "3.07", "1.999"]


def main():
    out = {
        "note": "Generated by betslip_vectors.py (an outside enumeration); read by domain/src/bet/arith_tests.rs and web/src/features/betslip/arith.test.ts.",
        "odds_limit": str(LIMIT),
        "currency_places": 2,
        "better_odds": [{"price": p, "offered": plain(better(p))} for p in BETTER],
        "slips": [dict(s, expect=figures(s)) for s in SLIPS],
    }
    path = Path(__file__).with_name("betslip_vectors.json")
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
