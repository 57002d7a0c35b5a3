"""OKLCH and OKHSL colours to sRGB hex, for pi 1.6.0 theme files (``oklch(62% 0.1 200)``,
``okhsl(250 60% 55%)``).

The conversions follow Björn Ottosson's published definitions of Oklab (2020) and of the
OKHSL/OKHSV colour pickers (2021): Oklab to linear sRGB through LMS, the sRGB transfer curve,
the ``toe`` lightness estimate, and the gamut cusp found by one Halley step per channel. OKHSL
colours are always inside sRGB by construction; OKLCH colours outside it are brought in by
lowering chroma at constant lightness and hue (a bisection, then a clip of what rounding leaves).

Decision: a small module instead of a colour library. The well-kept choice, ColorAide, registers
every colour space it knows when imported (0.5-1 s here), and a user theme is read at every start
of the app; these three conversions are all pi's theme format needs. The tests compare every colour
of 1.6.0's own dark theme, and a grid of values, against ColorAide (a test-only dependency).
"""

from __future__ import annotations

import math
import re

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_FUNCTION = re.compile(
    rf"^\s*(okhsl|oklch)\(\s*({_NUMBER})(%?)(?:deg)?[\s,]+({_NUMBER})(%?)[\s,]+({_NUMBER})(%?)(?:deg)?\s*\)\s*$",
    re.IGNORECASE,
)


class ColorSyntaxError(ValueError):
    """A colour function that does not parse."""


def is_color_function(value: str) -> bool:
    lowered = value.strip().lower()
    return lowered.startswith(("okhsl(", "oklch("))


def function_to_hex(value: str) -> str:
    """``okhsl(H S% L%)`` or ``oklch(L C H)`` (L as ``62%`` or ``0.62``) as ``#rrggbb``."""
    match = _FUNCTION.match(value)
    if match is None:
        raise ColorSyntaxError(value)
    kind = match.group(1).lower()
    first, second, third = (float(match.group(i)) for i in (2, 4, 6))
    if kind == "okhsl":
        saturation = second / 100 if match.group(5) or second > 1 else second
        lightness = third / 100 if match.group(7) or third > 1 else third
        rgb = okhsl_to_srgb(first, saturation, lightness)
    else:
        lightness = first / 100 if match.group(3) or first > 1 else first
        chroma = second / 100 * 0.4 if match.group(5) else second  # CSS: 100% is 0.4
        rgb = oklch_to_srgb(lightness, chroma, third)
    return to_hex(rgb)


def to_hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(min(1.0, max(0.0, c)) * 255):02x}" for c in rgb)


# --- Oklab ---------------------------------------------------------------------------------------


def _oklab_to_linear_srgb(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    l_ = lightness + 0.3963377774 * a + 0.2158037573 * b
    m_ = lightness - 0.1055613458 * a - 0.0638541728 * b
    s_ = lightness - 0.0894841775 * a - 1.2914855480 * b
    l3, m3, s3 = l_**3, m_**3, s_**3
    return (
        4.0767416621 * l3 - 3.3077115913 * m3 + 0.2309699292 * s3,
        -1.2684380046 * l3 + 2.6097574011 * m3 - 0.3413193965 * s3,
        -0.0041960863 * l3 - 0.7034186147 * m3 + 1.7076147010 * s3,
    )


def _linear_srgb_to_oklab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = rgb
    long_ = 0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b
    medium = 0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b
    short = 0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b
    l_, m_, s_ = (math.copysign(abs(x) ** (1 / 3), x) for x in (long_, medium, short))
    return (
        0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_,
        1.9779984951 * l_ - 2.4285922050 * m_ + 0.4505937099 * s_,
        0.0259040371 * l_ + 0.7827717662 * m_ - 0.8086757660 * s_,
    )


def _encode(x: float) -> float:
    """The sRGB transfer function (linear light to the stored value)."""
    if x >= 0.0031308:
        return 1.055 * x ** (1 / 2.4) - 0.055
    return 12.92 * x


def _decode(x: float) -> float:
    if x >= 0.04045:
        return ((x + 0.055) / 1.055) ** 2.4
    return x / 12.92


# --- OKLCH ---------------------------------------------------------------------------------------


def _in_gamut(rgb: tuple[float, float, float], eps: float = 1e-6) -> bool:
    return all(-eps <= c <= 1 + eps for c in rgb)


def oklch_to_srgb(lightness: float, chroma: float, hue_degrees: float) -> tuple[float, float, float]:
    """Gamma-encoded sRGB in 0..1; out-of-gamut colours lose chroma, keeping lightness and hue."""
    if lightness >= 1:
        return (1.0, 1.0, 1.0)
    if lightness <= 0:
        return (0.0, 0.0, 0.0)
    angle = math.radians(hue_degrees)
    cos_h, sin_h = math.cos(angle), math.sin(angle)

    def linear(c: float) -> tuple[float, float, float]:
        return _oklab_to_linear_srgb(lightness, c * cos_h, c * sin_h)

    rgb = linear(max(0.0, chroma))
    if not _in_gamut(rgb):
        low, high = 0.0, chroma
        for _ in range(40):
            mid = (low + high) / 2
            if _in_gamut(linear(mid)):
                low = mid
            else:
                high = mid
        rgb = linear(low)
    encoded = tuple(_encode(min(1.0, max(0.0, c))) for c in rgb)
    return encoded[0], encoded[1], encoded[2]


# --- OKHSL ---------------------------------------------------------------------------------------

_K1, _K2 = 0.206, 0.03
_K3 = (1 + _K1) / (1 + _K2)


def _toe_inv(x: float) -> float:
    return (x * x + _K1 * x) / (_K3 * (x + _K2))


def _max_saturation(a: float, b: float) -> float:
    """The largest saturation ``C/L`` inside sRGB for the hue (a, b), a unit vector."""
    if -1.88170328 * a - 0.80936493 * b > 1:
        k = (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245)
        w = (4.0767416621, -3.3077115913, 0.2309699292)
    elif 1.81444104 * a - 1.19445276 * b > 1:
        k = (0.73956515, -0.45954404, 0.08285427, 0.12541070, 0.14503204)
        w = (-1.2684380046, 2.6097574011, -0.3413193965)
    else:
        k = (1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167)
        w = (-0.0041960863, -0.7034186147, 1.7076147010)
    saturation = k[0] + k[1] * a + k[2] * b + k[3] * a * a + k[4] * a * b
    k_l = 0.3963377774 * a + 0.2158037573 * b
    k_m = -0.1055613458 * a - 0.0638541728 * b
    k_s = -0.0894841775 * a - 1.2914855480 * b
    l_, m_, s_ = 1 + saturation * k_l, 1 + saturation * k_m, 1 + saturation * k_s
    l3, m3, s3 = l_**3, m_**3, s_**3
    l_ds, m_ds, s_ds = 3 * k_l * l_ * l_, 3 * k_m * m_ * m_, 3 * k_s * s_ * s_
    l_ds2, m_ds2, s_ds2 = 6 * k_l * k_l * l_, 6 * k_m * k_m * m_, 6 * k_s * k_s * s_
    f = w[0] * l3 + w[1] * m3 + w[2] * s3
    f1 = w[0] * l_ds + w[1] * m_ds + w[2] * s_ds
    f2 = w[0] * l_ds2 + w[1] * m_ds2 + w[2] * s_ds2
    return saturation - f * f1 / (f1 * f1 - 0.5 * f * f2)


def _cusp(a: float, b: float) -> tuple[float, float]:
    """(L, C) of the most saturated sRGB colour of the hue."""
    s_cusp = _max_saturation(a, b)
    rgb = _oklab_to_linear_srgb(1, s_cusp * a, s_cusp * b)
    l_cusp = (1 / max(rgb)) ** (1 / 3)
    return l_cusp, l_cusp * s_cusp


def _gamut_intersection(
    a: float, b: float, l1: float, c1: float, l0: float, cusp: tuple[float, float]
) -> float:
    """How far along the line from (l0, 0) to (l1, c1) the sRGB boundary lies (0..1)."""
    cusp_l, cusp_c = cusp
    if (l1 - l0) * cusp_c - (cusp_l - l0) * c1 <= 0:
        return cusp_c * l0 / (c1 * cusp_l + cusp_c * (l0 - l1))
    t = cusp_c * (l0 - 1) / (c1 * (cusp_l - 1) + cusp_c * (l0 - l1))
    d_l, d_c = l1 - l0, c1
    k_l = 0.3963377774 * a + 0.2158037573 * b
    k_m = -0.1055613458 * a - 0.0638541728 * b
    k_s = -0.0894841775 * a - 1.2914855480 * b
    l_dt, m_dt, s_dt = d_l + d_c * k_l, d_l + d_c * k_m, d_l + d_c * k_s
    lightness, chroma = l0 * (1 - t) + t * l1, t * c1
    l_, m_, s_ = lightness + chroma * k_l, lightness + chroma * k_m, lightness + chroma * k_s
    l3, m3, s3 = l_**3, m_**3, s_**3
    ldt, mdt, sdt = 3 * l_dt * l_ * l_, 3 * m_dt * m_ * m_, 3 * s_dt * s_ * s_
    ldt2, mdt2, sdt2 = 6 * l_dt * l_dt * l_, 6 * m_dt * m_dt * m_, 6 * s_dt * s_dt * s_
    steps = []
    for w in (
        (4.0767416621, -3.3077115913, 0.2309699292),
        (-1.2684380046, 2.6097574011, -0.3413193965),
        (-0.0041960863, -0.7034186147, 1.7076147010),
    ):
        value = w[0] * l3 + w[1] * m3 + w[2] * s3 - 1
        d1 = w[0] * ldt + w[1] * mdt + w[2] * sdt
        d2 = w[0] * ldt2 + w[1] * mdt2 + w[2] * sdt2
        u = d1 / (d1 * d1 - 0.5 * value * d2)
        steps.append(-value * u if u >= 0 else math.inf)
    return t + min(steps)


def _st_mid(a: float, b: float) -> tuple[float, float]:
    s = 0.11516993 + 1 / (
        7.44778970
        + 4.15901240 * b
        + a
        * (
            -2.19557347
            + 1.75198401 * b
            + a * (-2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a))
        )
    )
    t = 0.11239642 + 1 / (
        1.61320320
        - 0.68124379 * b
        + a
        * (
            0.40370612
            + 0.90148123 * b
            + a * (-0.27087943 + 0.61223990 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a))
        )
    )
    return s, t


def okhsl_to_srgb(hue_degrees: float, saturation: float, lightness: float) -> tuple[float, float, float]:
    """Gamma-encoded sRGB in 0..1 for OKHSL hue (degrees), saturation and lightness (0..1)."""
    if lightness >= 1:
        return (1.0, 1.0, 1.0)
    if lightness <= 0:
        return (0.0, 0.0, 0.0)
    angle = math.radians(hue_degrees)
    a_, b_ = math.cos(angle), math.sin(angle)
    big_l = _toe_inv(lightness)
    cusp = _cusp(a_, b_)
    c_max = _gamut_intersection(a_, b_, big_l, 1, big_l, cusp)
    s_max, t_max = cusp[1] / cusp[0], cusp[1] / (1 - cusp[0])
    k = c_max / min(big_l * s_max, (1 - big_l) * t_max)
    s_mid, t_mid = _st_mid(a_, b_)
    c_a, c_b = big_l * s_mid, (1 - big_l) * t_mid
    c_mid = 0.9 * k * math.sqrt(math.sqrt(1 / (1 / c_a**4 + 1 / c_b**4)))
    c_a, c_b = big_l * 0.4, (1 - big_l) * 0.8
    c_0 = math.sqrt(1 / (1 / c_a**2 + 1 / c_b**2))
    mid, mid_inv = 0.8, 1.25
    saturation = min(1.0, max(0.0, saturation))
    if saturation < mid:
        t = mid_inv * saturation
        k_1 = mid * c_0
        k_2 = 1 - k_1 / c_mid
        chroma = t * k_1 / (1 - k_2 * t)
    else:
        t = (saturation - mid) / (1 - mid)
        k_0 = c_mid
        k_1 = (1 - mid) * c_mid * c_mid * mid_inv * mid_inv / c_0
        k_2 = 1 - k_1 / (c_max - c_mid)
        chroma = k_0 + t * k_1 / (1 - k_2 * t)
    rgb = _oklab_to_linear_srgb(big_l, chroma * a_, chroma * b_)
    encoded = tuple(_encode(min(1.0, max(0.0, c))) for c in rgb)
    return encoded[0], encoded[1], encoded[2]


def hex_to_oklab(value: str) -> tuple[float, float, float]:
    """A ``#rrggbb`` colour in Oklab (used to tell light themes from dark ones)."""
    rgb = tuple(_decode(int(value[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return _linear_srgb_to_oklab((rgb[0], rgb[1], rgb[2]))
