"""A plot on a page is captioned with what it shows, not with its file's name alone."""

from __future__ import annotations

from pathlib import Path

from arena.display.html import PLOT_CAPTIONS, _plots, plot_caption
from arena.results.files import PLOT_FILES

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


def test_every_plot_the_arena_draws_has_a_caption() -> None:
    assert set(PLOT_CAPTIONS) == set(PLOT_FILES)
    assert all(caption[0].isupper() and not caption.endswith(".png") for caption in PLOT_CAPTIONS.values())


def test_a_page_s_figure_is_captioned_with_what_the_plot_shows(tmp_path: Path) -> None:
    picture = tmp_path / "rating.png"
    picture.write_bytes(PNG)
    shown = _plots([picture])
    assert "<figcaption>Rating per entrant, with its 95% interval <small>(rating.png)</small></figcaption>" in shown
    assert 'alt="Rating per entrant, with its 95% interval"' in shown
    assert plot_caption("other.png") == "other.png"
