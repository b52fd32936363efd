#!/usr/bin/env python3
"""Check a finished Basra match from its replay file alone, without the server's code.

Usage: ``python3 basra_check.py FILE [--receipts RECEIPTS] [--json]``

Standard library only, written from docs/fairness.md and docs/replay-format.md: it recomputes
the commitment from the revealed secret, every seat's client seed, every deal (the dealer of
each round, every hand in the order dealt, the opening floor and the cards sent back) and the
whole hash chain, and checks that each receipt a client kept (``{"seq", "chain"}`` lines) lies
on that chain. It does not judge the plays and scores: ``basra verify`` does that too.

Prints ``ok`` with what was checked, or ``seq N: KIND: why`` for the first fault (``line 1``
for the header); exits 0 only when the file checks, 1 when it does not, 2 when it cannot be
read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from typing import Any

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
HAND_SIZE = {"lebanese": 6}  # every other rule set deals 4
START = bytes(32)  # the link before seq 1
# Fields that enter the chain only through their hash ("sealed"), and what an import rewrites.
SEALED = ("caused_by", "request_id", "token_id", "token_hash")
NOT_IN_RECORD = ("chain", "sealed", *SEALED)


class Fault(Exception):
    """The first thing in the file that does not check: where, which kind, and why."""

    def __init__(self, seq: int, kind: str, why: str) -> None:
        super().__init__(why)
        self.seq, self.kind, self.why = seq, kind, why


# --- basra-fair-v1 (docs/fairness.md, steps 1-7) -------------------------------------------


def lp(data: bytes) -> bytes:
    """4-byte big-endian length, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def commitment(match_id: str, secret: bytes) -> str:
    """Step 2: C = SHA-256("basra-fair-v1/commit" ‖ lp(match_id) ‖ S)."""
    data = b"basra-fair-v1/commit" + lp(match_id.encode("utf-8")) + secret
    return hashlib.sha256(data).hexdigest()


def deal_key(secret: bytes, client_seeds: list[str]) -> bytes:
    """Step 3: K = HMAC-SHA256(S, "basra-fair-v1/master" ‖ u32be(n) ‖ lp(cs_0) ‖ …)."""
    msg = b"basra-fair-v1/master" + len(client_seeds).to_bytes(4, "big")
    for seed in client_seeds:
        msg += lp(seed.encode("utf-8"))
    return hmac.new(secret, msg, "sha256").digest()


class Stream:
    """Step 4: the u32 numbers of HMAC-SHA256(K, lp(label) ‖ u64be(i)), eight a block."""

    def __init__(self, key: bytes, label: str) -> None:
        self.key, self.label, self.block = key, label.encode("utf-8"), 0
        self.numbers: list[int] = []

    def uniform(self, n: int) -> int:
        """Rejection sampling below 2^32 − (2^32 mod n), then mod n."""
        limit = 2**32 - (2**32 % n)
        while True:
            if not self.numbers:
                msg = lp(self.label) + self.block.to_bytes(8, "big")
                digest = hmac.new(self.key, msg, "sha256").digest()
                self.numbers = [int.from_bytes(digest[k : k + 4], "big") for k in range(0, 32, 4)]
                self.block += 1
            x = self.numbers.pop(0)
            if x < limit:
                return x % n


def card_name(index: int) -> str:
    """Step 6: suit index div 13 (C, D, H, S), rank index mod 13 (A … K)."""
    return RANKS[index % 13] + SUITS[index // 13]


def round_deck(key: bytes, round_number: int) -> list[str]:
    """Step 6: Fisher-Yates on the stream "round/r"; element 0 is the top of the stock."""
    stream = Stream(key, f"round/{round_number}")
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = stream.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [card_name(c) for c in deck]


# --- basra-chain-v1 (docs/fairness.md, "The chain") ------------------------------------------


def canonical(value: Any) -> bytes:
    """Sorted keys, no spaces, UTF-8 as is (RFC 8785 for these values)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sealed_of(line: dict[str, Any]) -> str:
    """The line's ``sealed``; from its support-only fields if it has none of its own."""
    if isinstance(line.get("sealed"), str):
        return str(line["sealed"])
    fields = {name: line.get(name) for name in SEALED}
    if line.get("type") == "seat_taken" and "player_id" in line:
        fields["name"] = line.get("name")
    return hashlib.sha256(b"basra-chain-v1/sealed" + canonical(fields)).hexdigest()


def record(line: dict[str, Any]) -> bytes:
    """The canonical record of an event line: everything but the fields the chain leaves out."""
    body = {k: v for k, v in line.items() if k not in NOT_IN_RECORD}
    if line.get("type") == "match_created":
        body.pop("match_id", None)
        body.pop("origin", None)
    if line.get("type") == "seat_taken" and "player_id" in line:
        body.pop("name", None)  # a registered player's name as recorded is sealed
    body["sealed"] = sealed_of(line)
    return canonical(body)


def link(previous: bytes, secret: bytes, seq: int, line: dict[str, Any]) -> bytes:
    """chain = SHA-256("basra-chain-v1" ‖ previous ‖ blind ‖ lp(record)), blind from S."""
    blind = hmac.new(secret, b"basra-chain-v1/blind" + seq.to_bytes(8, "big"), "sha256").digest()
    return hashlib.sha256(b"basra-chain-v1" + previous + blind + lp(record(line))).digest()


# --- the file --------------------------------------------------------------------------------


def read_lines(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the event lines of a replay file."""
    with open(path, "rb") as handle:
        raw = [line for line in handle.read().split(b"\n") if line.strip()]
    if not raw:
        raise Fault(0, "file", "the file is empty")
    header = json.loads(raw[0])
    if header.get("format") != "basra-replay" or header.get("version") != 1:
        raise Fault(0, "file", "not a basra-replay version 1 file")
    events = [json.loads(line) for line in raw[1:]]
    for number, line in enumerate(events, 1):
        if line.get("seq") != number:
            raise Fault(number, "file", f"seq {line.get('seq')} where seq {number} belongs")
    return header, events


def revealed_secret(header: dict[str, Any]) -> bytes:
    """The match secret S the header reveals once the match has ended."""
    seed = header.get("seed")
    if not isinstance(seed, str):
        raise Fault(0, "file", "the secret is not revealed (seed is null): the match has not ended")
    return bytes.fromhex(seed)


def check_commitment(header: dict[str, Any], events: list[dict[str, Any]], secret: bytes) -> None:
    """The commitment published in the first event is the secret's, and the end reveals it."""
    seed = secret.hex()
    created = events[0] if events and events[0].get("type") == "match_created" else None
    if created is None:
        raise Fault(1, "setup", "the first event is not match_created")
    first_id = created.get("origin") or created.get("match_id") or header.get("match_id")
    published = created.get("commitment")
    if commitment(str(first_id), secret) != published:
        raise Fault(1, "commitment", f"SHA-256 of the secret under {first_id!r} is not {published}")
    if header.get("commitment") not in (None, published):
        raise Fault(0, "commitment", "the header's commitment is not match_created's")
    ended = [line for line in events if line.get("type") == "match_ended"]
    if not ended or ended[0].get("seed") != seed:
        raise Fault(len(events), "end", "no match_ended reveals the header's seed")


def client_seeds(header: dict[str, Any], events: list[dict[str, Any]]) -> list[str]:
    """Every seat's client seed: match_created's, each replaced by the one its seat gave."""
    seeds = list(events[0].get("client_seeds") or [""] * int(header["seats"]))
    for line in events:
        if line.get("type") == "seat_taken" and isinstance(line.get("client_seed"), str):
            seeds[int(line["seat"])] = line["client_seed"]
    given = header.get("client_seeds")
    if given and list(given) != seeds:
        raise Fault(0, "seeds", f"the header's client_seeds {given} are not the seats' {seeds}")
    return seeds


def check_deals(header: dict[str, Any], events: list[dict[str, Any]], key: bytes) -> int:
    """Steps 5-7 for every round: the dealer, every hand in order, the floor; rounds checked."""
    seats = int(header["seats"])
    ruleset = str(header["ruleset"])
    hand = HAND_SIZE.get(ruleset, 4)
    first = Stream(key, "dealer").uniform(seats)
    stock: list[str] = []
    dealer = first
    rounds = 0
    for line in events:
        kind, seq = line.get("type"), int(line["seq"])
        if kind == "round_started":
            rounds = int(line["round"])
            dealer = (first + rounds - 1) % seats
            if line.get("dealer") != dealer:
                raise Fault(seq, "deal", f"round {rounds}'s dealer is seat {dealer}")
            stock = round_deck(key, rounds)
        elif kind == "cards_dealt":
            hands: list[list[str]] = [[] for _ in range(seats)]
            seat = (dealer + 1) % seats
            for _ in range(seats * hand):
                hands[seat].append(stock.pop(0))
                seat = (seat + 1) % seats
            if [list(h or []) for h in line.get("hands", [])] != hands:
                raise Fault(seq, "deal", f"the seed deals {hands} in round {line.get('round')}")
        elif kind == "floor_dealt":
            floor: list[str] = []
            sent: list[str] = []
            while len(floor) < 4:
                card = stock.pop(0)
                powered = card[:-1] == "J" or (ruleset != "lebanese" and card == "7D")
                (sent if powered else floor).append(card)
            stock += sent
            if list(line.get("cards", [])) != floor or list(line.get("reburied", [])) != sent:
                raise Fault(seq, "deal", f"the seed turns the floor {floor}, sending back {sent}")
    return rounds


def check_chain(events: list[dict[str, Any]], secret: bytes) -> bool:
    """Every link recomputed; False for a file with no chain at all."""
    if not any("chain" in line for line in events):
        return False
    previous = START
    for line in events:
        seq = int(line["seq"])
        if not isinstance(line.get("chain"), str):
            raise Fault(seq, "chain", "the line has no chain link, but the file is chained")
        expected = link(previous, secret, seq, line)
        if expected.hex() != line["chain"]:
            raise Fault(
                seq,
                "chain",
                f"the link is {line['chain'][:16]}…, the line gives"
                f" {expected.hex()[:16]}…: it was changed after it was recorded",
            )
        previous = expected
    return True


def check_receipts(path: str, events: list[dict[str, Any]], match_id: str) -> int:
    """Each receipt line {"seq", "chain"} must be the file's link at its seq."""
    links = {int(line["seq"]): line.get("chain") for line in events}
    count = 0
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if not text.strip():
                continue
            receipt = json.loads(text)
            if receipt.get("match_id") not in (None, match_id):
                raise Fault(
                    0, "receipt", f"receipt line {number} is for match {receipt['match_id']}"
                )
            seq, chain = int(receipt["seq"]), receipt["chain"]
            if links.get(seq) != chain:
                raise Fault(
                    seq,
                    "receipt",
                    f"the receipt {{seq {seq}, chain {chain[:16]}…}} is not on the file's chain",
                )
            count += 1
    return count


def check(path: str, receipts: str | None = None) -> dict[str, Any]:
    """Everything above, in order; the result as ``--json`` prints it."""
    header, events = read_lines(path)
    secret = revealed_secret(header)
    # As basra verify: the chain first (a line changed after it was recorded), then the
    # receipts, then what follows from the secret.
    chained = check_chain(events, secret)
    checked = check_receipts(receipts, events, str(header["match_id"])) if receipts else 0
    check_commitment(header, events, secret)
    seeds = client_seeds(header, events)
    rounds = check_deals(header, events, deal_key(secret, seeds))
    return {
        "ok": True,
        "events": len(events),
        "rounds": rounds,
        "chained": chained,
        "receipts": checked,
        "client_seeds": seeds,
    }


def main(argv: list[str]) -> int:
    """Command line: FILE [--receipts RECEIPTS] [--json]."""
    args = [a for a in argv if a != "--json"]
    as_json = len(args) != len(argv)
    receipts = None
    if "--receipts" in args:
        at = args.index("--receipts")
        receipts = args[at + 1] if at + 1 < len(args) else None
        del args[at : at + 2]
    if len(args) != 1 or (receipts is None and "--receipts" in argv):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        result = check(args[0], receipts)
    except Fault as fault:
        if as_json:
            print(json.dumps({"ok": False, "seq": fault.seq, "kind": fault.kind, "why": fault.why}))
        else:
            where = f"seq {fault.seq}" if fault.seq else "line 1"
            print(f"{where}: {fault.kind}: {fault.why}")
        return 1
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: cannot read the file: {error}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(result))
    else:
        chain = "chain checked" if result["chained"] else "no chain in the file"
        print(
            f"ok: {result['events']} events, commitment and {result['rounds']} round(s) of deals"
            f" checked, {chain}, {result['receipts']} receipt(s) on it"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
