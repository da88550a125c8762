"""Pictures of the table for ``render_mode="rgb_array"``.

:func:`draw_table` turns a :class:`TableView` (plain data the environment fills when ``render()``
is called, never on ``step()``) into an ``(H, W, 3)`` ``uint8`` array. Drawing uses matplotlib's
Agg canvas, imported on the first call (no pyplot, no window, no global figure state), so the
environments import and step without matplotlib. The 53 card faces, the card back and every line
of text are drawn once per process into sprites that every frame pastes onto the felt (text is what
costs in matplotlib: a frame drawn whole took about 45 ms, about 21 frames/s, which slowed CleanRL's
``--capture-video`` training from ~1,200 to under 70 steps/s; a frame of cached sprites is a few
numpy copies). ``python scripts/benchmark.py --only render`` measures it.

Layout (800 × 450 pixels)::

    +------------------------------------------------------------------+
    | AsiaPokerSetting  phase: done           ante $5                  |
    | your cards   [A♠][K♥][T♦][9♣][7♠][4♥][JK]                        |
    | you set      high [..][..][..][..]  medium [..][..]  low [..]    |
    | dealer       high [..][..][..][..]  medium [..][..]  low [..]    |
    | result: won 2 of 3 hands; main +5, bonus +0; net +5 chips        |
    +------------------------------------------------------------------+

In the bet phase the cards are face down; in the set phase the second row shows the house way
for the player's cards; a fouled setting is marked FOULED in red.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from splitpoker.envs.rules.cards import JOKER, SUIT_SYMBOLS

WIDTH, HEIGHT, DPI = 800, 450, 100
CARD_W, CARD_H, CARD_GAP, GROUP_GAP = 44, 62, 6, 22
LEFT = 130  # x where the cards start; row labels sit left of it
FELT = "#0b6623"
CARD_FACE = "#fffdf6"  # ivory: a colour nothing else uses, so tests can count face-up card pixels
RED, BLACK, JOKER_COLOUR = "#c8102e", "#111111", "#6a1b9a"
RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")



def check_render_mode(render_mode, modes) -> str | None:
    """``render_mode`` if it is ``None`` or one of the env's ``modes``, else a ``ValueError`` naming it
    (every env checks its ``render_mode`` here)."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode={render_mode!r}: expected one of {list(modes)} or None")
    return render_mode

@dataclass
class TableView:
    """What one picture shows (plain data, built by ``SplitHandEnv._table_view``).

    ``slots`` rows are lists of ``(slot name, cards)``; ``None`` leaves a row out.
    """

    title: str
    wager: str = ""
    cards: list[int] | None = None  # the player's seven cards; None = face down
    rows: list[tuple[str, list[tuple[str, list[int]]], str]] = field(default_factory=list)  # (label, slots, tag)
    result: list[str] = field(default_factory=list)
    result_colour: str = "white"


def _text(ax, x: float, y: float, text: str, **kw) -> None:
    ax.text(x, y, text, parse_math=False, **kw)  # "$5" is money, not mathtext


_FELT_RGB = np.array([int(FELT[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)


@lru_cache(maxsize=1)
def _felt() -> np.ndarray:
    """The empty table, copied for each frame (a copy takes about 1 ms; filling a frame with the
    colour by broadcasting takes about 25 ms)."""
    return np.broadcast_to(_FELT_RGB, (HEIGHT, WIDTH, 3)).copy()


_REF_X, _REF_Y = WIDTH, 50  # where a sprite's text is anchored on its own canvas (room on every side)


@lru_cache(maxsize=4096)
def _text_sprite(text: str, fontsize: float, color: str, bold: bool, box: str | None, ha: str, va: str,
                 fx: float, fy: float) -> tuple[np.ndarray, int, int]:
    """One line of text drawn on the felt as a frame would draw it (the same alignment and the same
    fraction of a pixel, so the pixels are the same), cropped to its ink: ``(sprite, dx, dy)``, the
    sprite's top-left corner at ``(dx, dy)`` from the anchor's whole pixel. Cached: a table's labels,
    titles and most result lines repeat from frame to frame."""
    ax, canvas = _canvas(2 * WIDTH, 2 * _REF_Y)
    bbox = {"fc": box, "ec": "none", "boxstyle": "round,pad=0.3"} if box else None
    _text(ax, _REF_X + fx, _REF_Y + fy, text, ha=ha, va=va, fontsize=fontsize, color=color,
          fontweight="bold" if bold else "normal", bbox=bbox)
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[:, :, :3]
    ink = np.argwhere((img != _FELT_RGB).any(axis=2))
    if len(ink) == 0:  # blank text
        return np.zeros((0, 0, 3), dtype=np.uint8), 0, 0
    (top, left), (bottom, right) = ink.min(axis=0), ink.max(axis=0) + 1
    return img[top:bottom, left:right].copy(), int(left - _REF_X), int(top - _REF_Y)


def _paste_text(img: np.ndarray, x: float, y: float, text: str, ha: str = "left", va: str = "center",
                fontsize: float = 12, color: str = "white", bold: bool = False, box: str | None = None) -> None:
    ix, iy = int(np.floor(x)), int(np.floor(y))
    sprite, dx, dy = _text_sprite(text, float(fontsize), color, bool(bold), box, ha, va, float(x - ix), float(y - iy))
    h, w = sprite.shape[:2]
    left, top = ix + dx, iy + dy
    l0, t0 = max(left, 0), max(top, 0)  # clipped to the picture
    r0, b0 = min(left + w, img.shape[1]), min(top + h, img.shape[0])
    if r0 > l0 and b0 > t0:
        img[t0:b0, l0:r0] = sprite[t0 - top:b0 - top, l0 - left:r0 - left]


def _card(ax, x: float, y: float, card: int | None) -> None:
    from matplotlib.patches import FancyBboxPatch

    if card is None:  # face down
        ax.add_patch(FancyBboxPatch((x, y), CARD_W, CARD_H, boxstyle="round,pad=0,rounding_size=5",
                                    fc="#1f3c88", ec="white", lw=1.5, hatch="xx"))
        return
    ax.add_patch(FancyBboxPatch((x, y), CARD_W, CARD_H, boxstyle="round,pad=0,rounding_size=5",
                                fc=CARD_FACE, ec="#333333", lw=1.0))
    if card == JOKER:
        colour, rank, suit = JOKER_COLOUR, "JK", "★"
    else:
        suit_index = card & 3
        colour = RED if suit_index in (1, 2) else BLACK
        rank, suit = RANK_TEXT[card >> 2], SUIT_SYMBOLS[suit_index]
    _text(ax, x + CARD_W / 2, y + 19, rank, ha="center", va="center", fontsize=15, fontweight="bold", color=colour)
    _text(ax, x + CARD_W / 2, y + 45, suit, ha="center", va="center", fontsize=19, color=colour)


def _label(img: np.ndarray, y: float, text: str) -> None:
    _paste_text(img, 12, y + CARD_H / 2, text, fontsize=12, bold=True)


def _slots(img: np.ndarray, y: int, slots, tag: str, placed: list) -> None:
    x = LEFT
    for name, cards in slots:
        _paste_text(img, x, y - 4, name, va="bottom", fontsize=10, color="#d9f2d9")
        for c in cards:
            placed.append((x, y, int(c)))
            x += CARD_W + CARD_GAP
        x += GROUP_GAP
    if tag:
        _paste_text(img, x + 4, y + CARD_H / 2, tag, fontsize=13, bold=True, box=RED)


@lru_cache(maxsize=1)
def _sprites() -> np.ndarray:
    """The 53 card faces and the card back (index 53), drawn once per process:
    ``(54, CARD_H, CARD_W, 3)`` uint8. Frames paste these instead of drawing 7-21 cards of text."""
    pitch = CARD_W + 4
    ax, canvas = _canvas(pitch * 54, CARD_H + 4)
    for i in range(54):
        _card(ax, i * pitch + 2, 2, None if i == 53 else i)
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[:, :, :3]
    return np.stack([img[2:2 + CARD_H, i * pitch + 2:i * pitch + 2 + CARD_W] for i in range(54)]).copy()


def _canvas(width: int, height: int):
    """An Agg canvas whose data coordinates are pixels, y growing downwards like the rows."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, facecolor=FELT)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    return ax, canvas


def draw_table(view: TableView) -> np.ndarray:
    """The picture of ``view`` as an ``(HEIGHT, WIDTH, 3)`` ``uint8`` RGB array."""
    img = _felt().copy()
    placed: list[tuple[int, int, int]] = []  # (x, y, sprite index) of every card
    _paste_text(img, 12, 22, view.title, fontsize=14, bold=True)
    if view.wager:
        _paste_text(img, WIDTH - 12, 22, view.wager, ha="right", fontsize=13, color="#ffe066", bold=True)
    y = 50
    _label(img, y, "your cards")
    for i, c in enumerate(view.cards if view.cards is not None else [None] * 7):
        placed.append((LEFT + i * (CARD_W + CARD_GAP), y, 53 if c is None else int(c)))
    y += CARD_H + 30
    for label, slots, tag in view.rows:
        _label(img, y, label)
        _slots(img, y, slots, tag, placed)
        y += CARD_H + 30
    for i, line in enumerate(view.result):
        _paste_text(img, 12, HEIGHT - 20 - 22 * (len(view.result) - 1 - i), line, fontsize=12,
                    color=view.result_colour if i == 0 else "white", bold=i == 0)
    sprites = _sprites()
    for x, y, k in placed:
        img[y:y + CARD_H, x:x + CARD_W] = sprites[k]
    return img


def draw_table_whole(view: TableView) -> np.ndarray:
    """The same picture drawn whole by matplotlib, every line of text laid out anew (how frames
    were drawn before the text sprites): the reference that tests compare :func:`draw_table`
    against and that ``scripts/benchmark.py --only render`` times beside it."""
    ax, canvas = _canvas(WIDTH, HEIGHT)
    placed: list[tuple[int, int, int]] = []

    def text(x, y, line, ha="left", va="center", fontsize=12, color="white", bold=False, box=None):
        bbox = {"fc": box, "ec": "none", "boxstyle": "round,pad=0.3"} if box else None
        _text(ax, x, y, line, ha=ha, va=va, fontsize=fontsize, color=color,
              fontweight="bold" if bold else "normal", bbox=bbox)

    text(12, 22, view.title, fontsize=14, bold=True)
    if view.wager:
        text(WIDTH - 12, 22, view.wager, ha="right", fontsize=13, color="#ffe066", bold=True)
    y = 50
    text(12, y + CARD_H / 2, "your cards", bold=True)
    for i, c in enumerate(view.cards if view.cards is not None else [None] * 7):
        placed.append((LEFT + i * (CARD_W + CARD_GAP), y, 53 if c is None else int(c)))
    y += CARD_H + 30
    for label, slots, tag in view.rows:
        text(12, y + CARD_H / 2, label, bold=True)
        x = LEFT
        for name, cards in slots:
            text(x, y - 4, name, va="bottom", fontsize=10, color="#d9f2d9")
            for c in cards:
                placed.append((x, y, int(c)))
                x += CARD_W + CARD_GAP
            x += GROUP_GAP
        if tag:
            text(x + 4, y + CARD_H / 2, tag, fontsize=13, bold=True, box=RED)
        y += CARD_H + 30
    for i, line in enumerate(view.result):
        text(12, HEIGHT - 20 - 22 * (len(view.result) - 1 - i), line,
             color=view.result_colour if i == 0 else "white", bold=i == 0)
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    sprites = _sprites()
    for x, y, k in placed:
        img[y:y + CARD_H, x:x + CARD_W] = sprites[k]
    return img
