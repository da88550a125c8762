"""A casino table: the dealer and up to six seats dealt from one 53-card deck, every seat settled
(main bet, Fortune / seed-000 bonus, Envy).

Spots (seed 004: "The Dealer is always hand #1, with hand #2 being the first spot to the Dealer's
left and continuing around the table from the Dealer's left to right")::

    spot    1       2       3       4       5       6       7
            dealer  seat 1  seat 2  seat 3  seat 4  seat 5  seat 6

Deal (:func:`deal_piles`): the shuffled deck is dealt as seven piles of seven cards, pile ``j``
being ``deck[7j : 7j + 7]`` (49 cards; the last 4 are not used). "A random number generator with
an indicator light determines where the first hand is to be placed" (seed 004): pile 0 goes to
the RNG-chosen spot ``first_spot`` (1..7) and pile ``j`` to spot ``(first_spot - 1 + j) % 7 + 1``,
going round from the dealer's left. All seven hands are dealt whether or not a seat is taken; the
hand of an empty seat is dead (never seen, never paid, never counted for Envy). This is the
casino procedure (the deal does not depend on who sits down), and it does not change the
distribution of any one hand.

Rounds: the seats are rows of one :class:`~splitpoker.envs.rules.play.round_rows.RoundRows`
(row ``r`` plays the ``r``-th taken seat) of the table's :class:`~splitpoker.envs.rules.game.Game`
(:meth:`TableRules.make_game`), the round kernel every environment runs. The table's deck
presets each row's deal (the seat's hand, the dealer's hand); the kernel values every setting,
marks the fouls, finds the house way, writes the mask and settles main bet and bonus. The rows
have no bet phase (:meth:`Table.place_bet` checks any amount within the limits and writes the
row's wagers) and one action after the settings, the house way. Only Envy, which reads the other
seats' hands, is settled at the table (:func:`envy_pass`).

:func:`settle_table` is the bulk path (``batch.py``: millions of house-way tables in numba
``prange``, where Python-level rows would be far too slow): one dealt table settled in one call,
composed of the same kernel functions (``settle_into``, ``bonus_chips``) and the same Envy pass;
a test checks it against :meth:`Table.settle` on random tables.

Settlement, either way:

* main bet against the dealer's house-way hand, as in the one-seat game (:mod:`.asia`,
  :mod:`.paigow`); a fouled setting loses;
* bonus (Asia seed-000 table, Pai Gow Fortune table) on the seat's seven cards, capped at the
  table's ``max_payout``;
* Envy (Pai Gow, seed 004): a seat holding an Envy wager collects the Envy amount of *every other
  seat's* qualifying hand, once per hand ("a bonus payout that is determined by other Players'
  hands"). The dealer is not a Player, so the dealer's hand never pays Envy; a seat's own hand
  never pays its own Envy. An Envy wager needs a Fortune wager of ``envy_min_fortune`` ($5) or
  more ("With a wager of $5 or more on the Fortune Bonus Spot, the Player is qualified for an
  'Envy' bonus wager").

Amounts are chips (dollars); an Envy amount is the Envy column's number times ``envy_unit``
(default $1, docs/rules.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
from numba import njit

from splitpoker.envs.rules.bonus.features import features_sorted
from splitpoker.envs.rules.bonus.paytables import bonus_chips
from splitpoker.envs.rules.cards import DECK_SIZE, JOKER, format_cards
from splitpoker.envs.rules.checks import is_integer
from splitpoker.envs.rules.dealing import MASK63, bounded, deal_round, sort7
from splitpoker.envs.rules.games.outcome import setting_fouled, setting_values
from splitpoker.envs.rules.house_ways.registry import house_way
from splitpoker.envs.rules.play import kernel as K
from splitpoker.envs.rules.play.kernel import Phase
from splitpoker.envs.rules.play.round_rows import Outputs, RoundOptions, RoundRows
from splitpoker.envs.rules.play.rounds import settle_into
from splitpoker.envs.rules.play.seed_stream import ROUND_SEED_BOUND
from splitpoker.envs.rules.ranking.rank_tables import paigow_back_table
from splitpoker.envs.rules.table.rules import TableRules

N_SPOTS = 7  # the dealer (spot 1) and six seats
MAX_SEATS = N_SPOTS - 1
HAND_SIZE = 7
CARDS_DEALT = N_SPOTS * HAND_SIZE  # 49 of the 53 cards
DEALER = 0  # spot index (spot number 1)


class SeatKind(IntEnum):
    """Who sits at a seat."""

    EMPTY = 0  # nobody: the spot's hand is dealt and dead
    PLAYER = 1  # bets and sets its own hand (a learner, a person, a policy)
    HOUSE_WAY = 2  # bets and has its hand set the house way, with no decision to make


# ---- kernels ---------------------------------------------------------------------------------
@njit(cache=True)
def deal_piles(cards, first_spot, hands):
    """Hand the seven 7-card piles of ``cards[:49]`` to the spots: pile ``j`` to spot index
    ``(first_spot - 1 + j) % 7`` (spot index 0 = the dealer); every hand sorted."""
    for j in range(N_SPOTS):
        spot = (first_spot - 1 + j) % N_SPOTS
        for k in range(HAND_SIZE):
            hands[spot, k] = cards[HAND_SIZE * j + k]
        sort7(hands[spot], 0)


@njit(cache=True)
def deal_table(seed, index, hands):
    """Shuffle for round ``index`` of run ``seed`` (counter-based, as every batch deal), draw the
    first spot 1..7 from the same stream, deal the piles into ``hands[7, 7]``; returns the first
    spot."""
    cards = np.empty(CARDS_DEALT, dtype=np.int64)
    state = deal_round(seed, index, CARDS_DEALT, cards)
    state, r = bounded(state, N_SPOTS)
    first_spot = r + 1
    deal_piles(cards, first_spot, hands)
    return first_spot


@njit(cache=True)
def envy_pass(codes, envy, active, envy_amount, out_envy, out_hits):
    """Envy of every seat (seed 004): a seat holding an Envy wager collects the Envy amount of every
    *other* active seat's hand (``codes``: seven-card feature codes), once per hand; the dealer
    (spot 0) never pays Envy."""
    for i in range(1, N_SPOTS):
        out_envy[i] = 0.0
        out_hits[i] = 0
        if not (active[i] and envy[i]):
            continue
        for j in range(1, N_SPOTS):
            if j != i and active[j]:
                amount = envy_amount[codes[j]]
                if amount > 0:
                    out_envy[i] += amount
                    out_hits[i] += 1


@njit(cache=True)
def settle_table(game_id, style_id, rank, to_two, cat5, commission, hands, settings, active, main, bonus, envy,
                 line_of_code, line_odds, bonus_cap, envy_amount, out_setting, out_fouled, out_won, out_main,
                 out_bonus, out_code, out_envy, out_envy_hits, scratch):
    """Settle one dealt table with the round kernel's functions: the bulk path of
    :mod:`splitpoker.envs.rules.table.batch` (:meth:`Table.settle` settles the same table as rows of
    the round kernel; a test checks they agree). Arrays are indexed by spot index 0..6 (0 = dealer).

    ``settings[i]``: the seat's setting, or -1 for the house way; ``active[i]``: the seat is in
    play (taken, bet placed, hand live). ``main``/``bonus``: chips; ``envy[i]``: an Envy wager.
    Each seat's main wager is settled against the dealer's house-way hand by
    :func:`~splitpoker.envs.rules.play.rounds.settle_into` and its bonus by
    :func:`~splitpoker.envs.rules.bonus.paytables.bonus_chips`, as every environment's round is;
    then :func:`envy_pass`. Outputs per spot: the setting played, fouled, hands won against the
    dealer, main and bonus chips, the seven-card feature code, Envy chips and the number of other
    hands that paid it. Returns the dealer's setting (``scratch``: a round-kernel scratch block)."""
    dealer = hands[DEALER:DEALER + 1]
    dealer_setting = np.zeros(1, dtype=np.int64)
    dealer_won = np.zeros(1, dtype=np.int64)
    ds = house_way(style_id, hands[DEALER], rank, to_two)
    for i in range(1, N_SPOTS):
        out_code[i] = features_sorted(hands[i], cat5) if active[i] else 0
        out_setting[i] = -1
        out_fouled[i] = False
        out_won[i] = 0
        out_main[i] = 0.0
        out_bonus[i] = 0.0
        if not active[i]:
            continue
        s = settings[i]
        if s < 0:
            s = house_way(style_id, hands[i], rank, to_two)
        v0, v1, v2 = setting_values(game_id, hands[i], s, rank)
        fouled = setting_fouled(game_id, v0, v1, v2, to_two)
        result = settle_into(game_id, v0, v1, v2, fouled, dealer, style_id, rank, to_two, commission, dealer_setting,
                             dealer_won, scratch)
        out_setting[i] = s
        out_fouled[i] = fouled
        out_won[i] = dealer_won[0]
        out_main[i] = main[i] * result
        out_bonus[i] = bonus_chips(line_of_code[out_code[i]], bonus[i], line_odds, bonus_cap)
    envy_pass(out_code, envy, active, envy_amount, out_envy, out_envy_hits)
    out_setting[DEALER] = ds
    return ds


# ---- validated Python API --------------------------------------------------------------------
@dataclass(frozen=True)
class SeatResult:
    """One seat's settled round (chips; ``net`` = main + bonus + envy)."""

    seat: int
    kind: str
    cards: str
    setting: int
    fouled: bool
    hands_won: int
    main_wager: float
    bonus_wager: float
    envy: bool
    main: float
    bonus: float
    bonus_line: str | None
    envy_chips: float
    envy_hands: int
    net: float


@dataclass(frozen=True)
class TableResult:
    first_spot: int
    dealer_cards: str
    dealer_setting: int
    seats: dict[int, SeatResult]


def _parse_kind(k) -> SeatKind:
    if isinstance(k, SeatKind):
        return k
    if isinstance(k, str):
        try:
            return SeatKind[k.strip().upper().replace("-", "_")]
        except KeyError:
            pass
    raise ValueError(f"seat kind {k!r}: expected one of {[s.name.lower() for s in SeatKind]}")


class Table:
    """A table of up to six seats and the dealer, one round at a time, validated at every step.

    Round: :meth:`place_bet` for every taken seat (any order) → :meth:`deal` → :meth:`set_hand`
    for every ``player`` seat (``house_way`` seats are set for them) → :meth:`settle`. A call out
    of turn, for an empty or unknown seat, or off the limits raises ``ValueError`` naming it and
    leaves the table unchanged. :meth:`leave` takes a seat out of the current round (its wagers
    are not settled and its hand, if dealt, is dead: the environments use it for a seat that made
    an illegal move, and charge that seat every wager it placed plus the penalty,
    :func:`~splitpoker.envs.rules.play.kernel.invalid_outcome`).

    The seats' rounds are :attr:`rows` (see the module docstring; ``mask_fouls``: the rows' mask
    leaves out fouled settings, which :meth:`set_hand` still accepts): after the deal,
    ``rows.ranks[row(seat)]``, ``rows.fouled``, ``rows.mask`` (settings ``0..S-1``, then the
    house-way action ``S``) and :meth:`house_way_setting` are the seat's; :attr:`dealt` holds the
    seats dealt in play.

    Example (fixed deck, first hand to seat 1)::

        t = Table(TableRules("paigow"), ["player", "house_way"])
        t.place_bet(1, 5, bonus=5, envy=True); t.place_bet(2, 5)
        t.deal(deck=my_deck, first_spot=2)
        t.set_hand(1, 0)
        result = t.settle()
    """

    def __init__(self, rules: TableRules | None = None, seats=("player",), *, mask_fouls: bool = True):
        self.rules = rules if rules is not None else TableRules()
        if not isinstance(self.rules, TableRules):
            raise TypeError(f"rules={rules!r}: expected a TableRules")
        seats = list(seats)
        if len(seats) > MAX_SEATS:
            raise ValueError(f"{len(seats)} seats: a 53-card deck deals at most {N_SPOTS} hands of {HAND_SIZE} "
                             f"({CARDS_DEALT} cards), the dealer and {MAX_SEATS} seats; expected 1..{MAX_SEATS} seats")
        kinds = [_parse_kind(k) for k in seats] + [SeatKind.EMPTY] * (MAX_SEATS - len(seats))
        if all(k == SeatKind.EMPTY for k in kinds):
            raise ValueError(f"seats {seats!r}: expected at least one taken seat")
        self.kinds = tuple(kinds)  # seat s (1..6) is kinds[s - 1]
        self._a = self.rules.arrays()
        self.hands = np.zeros((N_SPOTS, HAND_SIZE), dtype=np.int64)
        taken = [s for s in range(1, MAX_SEATS + 1) if self.kinds[s - 1] != SeatKind.EMPTY]
        self._row = {s: r for r, s in enumerate(taken)}  # seat -> its row, in seat order
        self.game = game = self.rules.make_game()
        n = self.rules.n_settings
        self.rows = RoundRows(game, len(taken), RoundOptions(
            house_way_action=n, mask_fouls=bool(mask_fouls), keep_ranks=True, seed_from_streams=False,
            preset_deal=True, mode=K.DISABLED))
        self._actions = np.zeros(len(taken), dtype=np.int64)
        self._out = self.rows.outputs()  # read before the next reset or step
        self.new_round()

    # ---- state ------------------------------------------------------------------------------
    def new_round(self) -> None:
        self.phase = Phase.BET
        self.bets: dict[int, tuple[float, float, bool]] = {}
        self.settings: dict[int, int] = {}
        self.left: set[int] = set()
        self.first_spot = 0
        self.hands[:] = -1
        self.dealt: frozenset[int] = frozenset()
        self.rows.phase[:] = K.DONE  # no row is in a round until the deal
        self.result: TableResult | None = None

    @property
    def taken(self) -> list[int]:
        """The taken seats in seat order (row ``r`` of :attr:`rows` plays ``taken[r]``)."""
        return list(self._row)

    def to_act(self) -> list[int]:
        """Seats that still have to act in the current phase (bet, or set a player hand)."""
        if self.phase == Phase.BET:
            return [s for s in self.taken if s not in self.bets and s not in self.left]
        if self.phase == Phase.SET:
            return [s for s in self.taken if self.kinds[s - 1] == SeatKind.PLAYER and s not in self.left
                    and s not in self.settings]
        return []

    def hand(self, seat: int) -> np.ndarray:
        """The seat's sorted cards (after the deal)."""
        seat = self._check_seat(seat)
        if self.phase == Phase.BET:
            raise ValueError(f"seat {seat} has no cards yet: the round is in the bet phase")
        return self.hands[seat].copy()

    def row(self, seat: int) -> int:
        """The row of :attr:`rows` that plays ``seat``'s round (a taken seat)."""
        if seat not in self._row:
            raise ValueError(f"seat {seat!r} has no row: taken seats are {self.taken}")
        return self._row[seat]

    def house_way_setting(self, seat: int) -> int:
        """The house way's setting of the seat's hand (a seat dealt in play this round)."""
        if seat not in self.dealt:
            raise ValueError(f"seat {seat!r} has no hand in play: seats dealt in play are {sorted(self.dealt)}")
        return int(self.rows.house_way[self._row[seat]])

    @property
    def dealer_hand(self) -> np.ndarray:
        if self.phase == Phase.BET:
            raise ValueError("the dealer has no cards yet: the round is in the bet phase")
        return self.hands[DEALER].copy()

    # ---- validation -------------------------------------------------------------------------
    def _check_seat(self, seat) -> int:
        if not is_integer(seat) or not 1 <= int(seat) <= MAX_SEATS:
            raise ValueError(f"seat {seat!r}: expected an integer 1..{MAX_SEATS} (seat 1 is the first spot to the dealer's left)")
        return int(seat)

    def _check_to_act(self, seat, phase: Phase, what: str) -> int:
        seat = self._check_seat(seat)
        if self.phase != phase:
            raise ValueError(f"seat {seat} cannot {what} in the {self.phase.name.lower()} phase: expected the {phase.name.lower()} phase")
        kind = self.kinds[seat - 1]
        if kind == SeatKind.EMPTY:
            raise ValueError(f"seat {seat} is empty: taken seats are {self.taken}")
        if seat in self.left:
            raise ValueError(f"seat {seat} has left this round")
        if seat not in self.to_act():
            why = ("it has already bet" if phase == Phase.BET else
                   "its hand is set the house way" if kind == SeatKind.HOUSE_WAY else "it has already set its hand")
            raise ValueError(f"seat {seat} is not to {what}: {why}; seats to act: {self.to_act()}")
        return seat

    # ---- actions ----------------------------------------------------------------------------
    def place_bet(self, seat, main, bonus=0.0, envy: bool = False) -> None:
        """Seat ``seat`` places its wagers (chips): main bet, bonus (Asia) / Fortune (Pai Gow), and
        whether it takes the Envy bonus (Pai Gow, needs a $5+ Fortune wager)."""
        seat = self._check_to_act(seat, Phase.BET, "bet")
        self.bets[seat] = self.rules.check_bet(main, bonus, envy)

    def leave(self, seat) -> None:
        """Take ``seat`` out of the current round: no wager of it is settled here, its hand is dead
        (read :attr:`bets` first: a caller that penalises the seat charges its wagers as lost)."""
        seat = self._check_seat(seat)
        if self.phase == Phase.DONE:
            raise ValueError(f"seat {seat} cannot leave: the round is settled, call new_round()")
        if self.kinds[seat - 1] == SeatKind.EMPTY or seat in self.left:
            raise ValueError(f"seat {seat} is not in this round: seats in play are "
                             f"{[s for s in self.taken if s not in self.left]}")
        self.left.add(seat)
        self.bets.pop(seat, None)
        self.settings.pop(seat, None)
        self.rows.phase[self._row[seat]] = K.DONE  # its row is not settled

    def deal(self, rng: np.random.Generator | None = None, *, seed: int | None = None, deck=None,
             first_spot: int | None = None) -> None:
        """Shuffle and deal the seven hands ("no more bets"): from ``deck`` (the cards in deal
        order, at least 49 distinct) and ``first_spot`` (1..7) when given, else from ``seed`` or
        ``rng`` (one 63-bit draw)."""
        if self.phase != Phase.BET:
            raise ValueError(f"cannot deal in the {self.phase.name.lower()} phase: call new_round() first")
        missing = self.to_act()
        if missing:
            raise ValueError(f"cannot deal: seat(s) {missing} have not bet (or left)")
        if not [s for s in self.taken if s not in self.left]:
            raise ValueError("cannot deal: every seat has left this round")
        if first_spot is not None and (not is_integer(first_spot)
                                       or not 1 <= int(first_spot) <= N_SPOTS):
            raise ValueError(f"first_spot={first_spot!r}: expected 1..{N_SPOTS} (1 = the dealer)")
        hands = np.empty_like(self.hands)
        if deck is not None:
            cards = np.asarray(deck)
            if cards.ndim != 1 or not np.issubdtype(cards.dtype, np.integer) or not CARDS_DEALT <= cards.size <= DECK_SIZE:
                raise ValueError(f"deck must be {CARDS_DEALT}..{DECK_SIZE} card integers in deal order, got {cards!r}")
            if cards.min() < 0 or cards.max() > JOKER or np.unique(cards).size != cards.size:
                raise ValueError(f"deck holds a card out of 0..52 or a repeated card: {cards.tolist()}")
            if first_spot is None:
                raise ValueError("a fixed deck needs first_spot (1..7)")
            deal_piles(cards.astype(np.int64), int(first_spot), hands)
            spot = int(first_spot)
        else:
            if seed is None:
                rng = rng if rng is not None else np.random.default_rng()
                seed = int(rng.integers(0, ROUND_SEED_BOUND))
            spot = int(deal_table(int(seed) & MASK63, 0, hands))
            if first_spot is not None:  # same shuffle, the piles handed round from the given spot
                cards = np.empty(CARDS_DEALT, dtype=np.int64)
                deal_round(int(seed) & MASK63, 0, CARDS_DEALT, cards)
                spot = int(first_spot)
                deal_piles(cards, spot, hands)
        self.hands[:] = hands
        self.first_spot = spot
        self.phase = Phase.SET
        self._deal_rows()

    def _deal_rows(self) -> None:
        """Every seat in play gets its row's round: the seat's and the dealer's hands, the kernel's
        reset (settings valued, fouls, house way, mask) and the seat's wagers."""
        rows = self.rows
        self.dealt = frozenset(self.bets)
        which = np.zeros(rows.n, dtype=np.bool_)
        for s in self.dealt:
            r = self._row[s]
            rows.player[r] = self.hands[s]
            rows.dealers[r, 0] = self.hands[DEALER]
            which[r] = True
        rows.reset(which, out=self._out)
        for s, (main, bonus, _) in self.bets.items():
            r = self._row[s]
            rows.main_wager[r], rows.bonus_wager[r] = main, bonus

    def set_hand(self, seat, setting) -> None:
        """A ``player`` seat sets its hand: setting index 0..n_settings-1 (a fouled setting is
        allowed and loses the main bet, as at the table)."""
        seat = self._check_to_act(seat, Phase.SET, "set a hand")
        n = self.rules.n_settings
        if not is_integer(setting) or not 0 <= int(setting) < n:
            raise ValueError(f"setting {setting!r} for seat {seat}: expected an integer 0..{n - 1}")
        self.settings[seat] = int(setting)

    def settle(self) -> TableResult:
        """Settle every seat in play; the round is then done."""
        if self.phase != Phase.SET:
            raise ValueError(f"cannot settle in the {self.phase.name.lower()} phase: deal and set the hands first")
        missing = self.to_act()
        if missing:
            raise ValueError(f"cannot settle: seat(s) {missing} have not set their hands")
        rows, out = self.rows, self._step_rows()
        a = self._a
        active = np.zeros(N_SPOTS, dtype=np.bool_)
        envy = np.zeros(N_SPOTS, dtype=np.bool_)
        for s, (_, _, e) in self.bets.items():
            active[s], envy[s] = True, e
        envy_chips = np.zeros(N_SPOTS)
        hits = np.zeros(N_SPOTS, dtype=np.int64)
        if envy.any():  # cross-seat: every other seat's seven cards
            codes = np.zeros(N_SPOTS, dtype=np.int64)
            for s in self.bets:
                codes[s] = features_sorted(self.hands[s], a["cat5"])
            envy_pass(codes, envy, active, a["envy_amount"], envy_chips, hits)
        seats = {}
        # Python values at once (per-element numpy scalars cost more than the round)
        setting, fouled, won, line, main, bonus = (x.tolist() for x in (
            out.setting, out.fouled, out.hands_won, out.bonus_line, out.main_chips, out.bonus_chips))
        envy_chips, hits = envy_chips.tolist(), hits.tolist()
        for s, (m, b, e) in sorted(self.bets.items()):
            r = self._row[s]
            seats[s] = SeatResult(
                seat=s, kind=self.kinds[s - 1].name.lower(), cards=format_cards(self.hands[s]), setting=setting[r],
                fouled=fouled[r], hands_won=won[r], main_wager=m, bonus_wager=b, envy=e, main=main[r], bonus=bonus[r],
                bonus_line=(rows.line_keys[line[r]] or None) if b > 0 else None, envy_chips=envy_chips[s],
                envy_hands=hits[s], net=main[r] + bonus[r] + envy_chips[s])
        if seats:
            ds = out.dealer_setting[self._row[next(iter(seats))]]
        else:  # every seat left after the deal: the dealer still sets the hand the house way
            ds = house_way(a["style_id"], self.hands[DEALER], a["rank"], a["to_two"])
        self.result = TableResult(first_spot=self.first_spot, dealer_cards=format_cards(self.hands[DEALER]),
                                  dealer_setting=int(ds), seats=seats)
        self.phase = Phase.DONE
        return self.result

    def _step_rows(self) -> Outputs:
        """Step the rows in play: a player seat's setting, a house-way seat's house-way action."""
        actions, ranges = self._actions, []
        for s in sorted(self.bets):
            r = self._row[s]
            actions[r] = self.settings[s] if self.kinds[s - 1] == SeatKind.PLAYER else self.rules.n_settings
            if ranges and ranges[-1][1] == r:
                ranges[-1][1] = r + 1
            else:
                ranges.append([r, r + 1])

        def run(kernel, n, *args):  # the rows in play only, by contiguous ranges
            for lo, hi in ranges:
                kernel(lo, hi, *args)

        return self.rows.step(actions, run=run, out=self._out)


def envy_line_of_hand(rules: TableRules, cards) -> str | None:
    """The Envy line another seat's seven ``cards`` pay (None if they do not qualify)."""
    if rules.envy_paytable is None:
        raise ValueError(f"the {rules.game} table has no Envy pay table")
    c = np.sort(np.asarray(cards, dtype=np.int64))
    if c.shape != (HAND_SIZE,):
        raise ValueError(f"expected {HAND_SIZE} cards, got {c.size}")
    line = rules.envy_paytable.line_for(int(features_sorted(c, paigow_back_table().category)))
    return None if line is None else line.key
