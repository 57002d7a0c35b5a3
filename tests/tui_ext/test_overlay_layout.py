"""Overlay placement (spec 60 R-OVL-01): a pure function of options, content height and terminal size."""

from __future__ import annotations

from pi_app.tui.extensions.overlays import Margins, OverlayOptions, overlay_layout


def test_default_is_centred_and_at_most_80_wide() -> None:
    layout = overlay_layout(OverlayOptions(), 10, 120, 40)
    assert (layout.width, layout.row, layout.col) == (80, 15, 20)
    small = overlay_layout(OverlayOptions(), 10, 50, 20)
    assert small.width == 50 and small.col == 0


def test_percent_sizes_anchors_offsets_and_margins() -> None:
    options = OverlayOptions.coerce(
        {"width": "50%", "maxHeight": "25%", "anchor": "bottom-right", "offsetX": -2}
    )
    layout = overlay_layout(options, 30, 100, 40)
    assert layout.width == 50 and layout.max_height == 10
    assert layout.row == 30 and layout.col == 48  # bottom edge; two columns left of the right edge
    margined = overlay_layout(OverlayOptions(anchor="top-left", margin=Margins(2, 0, 0, 3)), 5, 100, 40)
    assert (margined.row, margined.col) == (2, 3)


def test_positions_are_clamped_and_bad_percent_falls_back_to_centre() -> None:
    layout = overlay_layout(OverlayOptions(width=200, row=100, col=-5, min_width=10), 5, 60, 20)
    assert layout.width == 60 and layout.row == 15 and layout.col == 0
    centre = overlay_layout(OverlayOptions(width=20, row="lots"), 4, 60, 20)
    assert centre.row == 8
    assert overlay_layout(OverlayOptions(margin=-3), 4, 60, 20).col == 0
