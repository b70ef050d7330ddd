"""Pictures made for the image tests, in memory (nothing binary is kept in the repository)."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image, ImageDraw


def screenshot(width: int = 2880, height: int = 1800, seed: int = 0, fmt: str = "PNG") -> bytes:
    """A text-heavy screenshot-like picture: light background, dark lines of 'text', a coloured bar."""
    image = Image.new("RGB", (width, height), (246, 246, 246))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 60), fill=(40 + seed % 200, 90, 160))
    for row, y in enumerate(range(90, height - 20, 28)):
        draw.text((24 + (seed * 7 + row * 13) % 40, y), f"line {row} of shot {seed}: the quick brown fox " * 3,
                  fill=(20, 20, 20))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def solid(width: int, height: int, fmt: str = "PNG", mode: str = "RGB", **save: object) -> bytes:
    out = io.BytesIO()
    Image.new(mode, (width, height), (200, 30, 30) if mode == "RGB" else None).save(out, fmt, **save)
    return out.getvalue()


def animated_gif() -> bytes:
    frames = [Image.new("RGB", (40, 40), (i * 80, 0, 0)) for i in range(3)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return out.getvalue()


def png_bomb(width: int = 50_000, height: int = 50_000) -> bytes:
    """A tiny PNG whose header claims ``width``×``height`` pixels (a decompression bomb's shape)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    rows = zlib.compress(b"\x00" * (width + 1) * 16, 9)  # a few rows; the rest never arrives
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def size_of(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def hostile_svg(local_picture: str) -> bytes:
    """An SVG that asks for a local file (a plain path in xlink:href, which QSvgRenderer loads even with
    Tiny12FeaturesOnly; in href, which it loads without), a file:// URL, a script, an
    event handler, a foreignObject and a CSS url(): a cleaned copy keeps only the red square it draws."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" '
            f'height="100" onload="alert(1)"><script>alert(2)</script>'
            f'<rect width="100" height="100" fill="red"/><circle r="1" style="fill:url(http://evil.example/x)"/>'
            f'<image x="0" y="0" width="100" height="100" xlink:href="{local_picture}"/>'
            f'<image x="0" y="0" width="100" height="100" href="{local_picture}"/>'
            f'<image x="0" y="0" width="50" height="50" xlink:href="file://{local_picture}"/>'
            f'<foreignObject width="10" height="10"><p xmlns="http://www.w3.org/1999/xhtml">hi</p></foreignObject>'
            f'<style>@import url(http://evil.example/a.css); circle {{ fill: url(file:///etc/passwd) }}</style>'
            f'</svg>').encode()


def billion_laughs_svg() -> bytes:
    """The entity expansion bomb, as an SVG: ten levels of ten, a thousand million ``lol``s."""
    levels = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
    return ('<?xml version="1.0"?><!DOCTYPE svg [' + "".join(levels) + ']>'
            '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&lol9;</text></svg>').encode()


def external_entity_svg(path: str) -> bytes:
    return (f'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file://{path}">]>'
            '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&x;</text></svg>').encode()
