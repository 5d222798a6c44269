"""The finish page's share image (``Study.finish_results``): a PNG drawn on the server
with Pillow: the study's title, the volunteer's score and the QR code of the study's
public link, in the shipped CJK serif (static/fonts/NotoSerifSC-Shiping.otf, OFL 1.1).
Nothing leaves the server: the QR code is drawn from segno's matrix, as the recruitment
page's (research/recruit.py) is drawn from segno as SVG."""

from __future__ import annotations

import io
import textwrap
from functools import lru_cache
from pathlib import Path

import segno
from django.conf import settings
from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 750, 1000  # a phone screen's proportions: shared in a chat as it is
FONT = Path(settings.BASE_DIR) / "static" / "fonts" / "NotoSerifSC-Shiping.otf"
INK, PAPER, ACCENT = (34, 30, 26), (250, 246, 238), (140, 38, 30)
QR_SIZE = 300


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT), size)


def _centered(draw: ImageDraw.ImageDraw, y: int, text: str, size: int, fill: tuple) -> int:
    """Draw ``text`` centred at height ``y``; the height below it."""
    font = _font(size)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text(((WIDTH - (right - left)) / 2 - left, y - top), text, font=font, fill=fill)
    return y + round(bottom - top)


def _qr(url: str) -> Image.Image:
    """The link's QR code (medium error correction, a quiet zone of 4 modules)."""
    matrix = segno.make(url, error="m").matrix
    border, n = 4, len(matrix)
    image = Image.new("L", (n + 2 * border, n + 2 * border), 255)
    for y, row in enumerate(matrix):
        for x, dark in enumerate(row):
            if dark:
                image.putpixel((x + border, y + border), 0)
    return image.resize((QR_SIZE, QR_SIZE), Image.Resampling.NEAREST)


def _balanced(title: str, most: int = 14) -> list[str]:
    """The title in lines of at most ``most`` characters, as even as can be (no lone
    last character)."""
    lines = -(-len(title) // most) or 1
    return textwrap.wrap(title, -(-len(title) // lines) or 1) or [""]


def share_png(*, title: str, score_line: str, place_line: str, invite: str, url: str) -> bytes:
    """The image as PNG bytes: ``WIDTH`` × ``HEIGHT`` pixels."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((24, 24, WIDTH - 25, HEIGHT - 25), outline=ACCENT, width=3)
    y = 90
    for line in _balanced(title)[:3]:
        y = _centered(draw, y, line, 46, INK) + 20
    y = _centered(draw, y + 40, score_line, 64, ACCENT) + 30
    if place_line:
        y = _centered(draw, y, place_line, 32, INK) + 20
    top = HEIGHT - QR_SIZE - 150
    image.paste(_qr(url).convert("RGB"), ((WIDTH - QR_SIZE) // 2, top))
    _centered(draw, top + QR_SIZE + 30, invite, 28, INK)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
