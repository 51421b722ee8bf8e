"""Kubernetes resource quantities (`500m`, `1.5Gi`, `2e3`) as exact fractions; None for anything else."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

_SUFFIX = {
    "": 1, "m": Fraction(1, 1000), "u": Fraction(1, 10**6), "n": Fraction(1, 10**9),
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}
_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|m|u|n|k|M|G|T|P|E)?)$")


def parse(value) -> Fraction | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value) if abs(value) <= 10**30 else None
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")) or abs(value) > 1e30:
            return None
        return Fraction(str(value))
    if not isinstance(value, str) or len(value) > 40:
        return None
    return _parse_text(value)


@lru_cache(maxsize=4096)  # manifests repeat a few quantities ("100m", "128Mi") thousands of times
def _parse_text(value: str) -> Fraction | None:
    m = _QUANTITY.match(value.strip())
    if not m:
        return None
    number, exp, suffix = m.groups()
    n = Fraction(number)
    if exp:
        e = int(exp[1:])
        if abs(e) > 30:
            return None
        return n * Fraction(10) ** e
    return n * _SUFFIX[suffix or ""]


def show(resource: str, amount: Fraction) -> str:
    """A readable quantity: cpu in cores or millicores, memory-like in Mi/Gi, counts as integers."""
    amount = float(amount)
    if resource == "cpu":
        if amount < 10 and amount != int(amount):
            return f"{round(amount * 1000)}m"
        return f"{amount:.4g}" if amount < 1000 else f"{amount:.0f}"
    if resource in ("memory", "ephemeral-storage"):
        gi = amount / 2**30
        if gi < 1:
            return f"{round(amount / 2**20)}Mi"
        return f"{gi:.4g}Gi" if gi < 1000 else f"{gi:.0f}Gi"
    return f"{amount:g}"


def show_range(resource: str, low: Fraction, high: Fraction) -> list[str]:
    """`[low, high]` shown in one unit: "0.94-893.7" cores, not "940m-893.7"; "0.5Gi-768Gi", not "512Mi-768Gi"."""
    shown = [show(resource, low), show(resource, high)]
    if _unit(shown[0]) == _unit(shown[1]):
        return shown
    if resource == "cpu":
        return [_cores(float(low)), _cores(float(high))]
    if resource in ("memory", "ephemeral-storage"):
        return [_gibibytes(float(q) / 2**30) for q in (low, high)]
    return shown


def _unit(text: str) -> str:
    return text.lstrip("0123456789.+-e")


def _cores(amount: float) -> str:
    return f"{amount:.4g}" if amount < 1000 else f"{amount:.0f}"


def _gibibytes(gi: float) -> str:
    return f"{gi:.0f}Gi" if gi >= 1000 else f"{gi:.4g}Gi" if gi >= 1 else f"{gi:.2g}Gi"
