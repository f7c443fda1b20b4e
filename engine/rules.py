"""Profiles and options (R13, R14): everything a game's rules may vary, resolved once.

A `Rules` value is the whole variant: the profile's fixed rules (R14) plus the options it
allows (R13). The engine reads only `Rules`, never the profile name, so a variant is data,
not a fork of the code.

>>> rules = resolve_rules("heads-up", {"direction": "counterclockwise"})
>>> rules.seats, rules.capture_mandatory, rules.ronda_points, rules.four_of_a_kind
(2, True, 2, 'wins')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from engine.errors import InvalidOptions

PROFILES: Final = ("pagat-4p", "heads-up", "libre-2p")
DEFAULT_PROFILE: Final = "pagat-4p"

#: R13: option -> allowed values, default first.
OPTION_VALUES: Final[dict[str, tuple[object, ...]]] = {
    "direction": ("clockwise", "counterclockwise"),
    "announcements": ("auto", "manual"),
    "ronda_points": (4, 2),
    "sequence": ("auto", "manual"),
    "special_claims": ("claim", "auto", "off"),
    "misdeal_penalty": ("game", "ten", "two"),
    "capture_mandatory": (False, True),
    "target": (40,),
}

#: R14: the options a two-player profile fixes (only `direction` and `misdeal_penalty` may vary).
_FIXED: Final[dict[str, dict[str, object]]] = {
    "pagat-4p": {},
    "heads-up": {
        "announcements": "auto",
        "ronda_points": 2,
        "sequence": "auto",
        "special_claims": "off",
        "capture_mandatory": True,
        "target": 40,
    },
    "libre-2p": {
        "announcements": "auto",
        "ronda_points": 4,
        "sequence": "manual",
        "special_claims": "off",
        "capture_mandatory": False,
        "target": 40,
    },
}


@dataclass(frozen=True, slots=True)
class Rules:
    """A resolved variant: the profile, its fixed rules (R14) and its options (R13)."""

    profile: str
    seats: int
    direction: str
    announcements: str
    ronda_points: int
    sequence: str
    special_claims: str
    misdeal_penalty: str
    capture_mandatory: bool
    target: int
    #: R6/R14: a ronda scores only while the team's score is below this (30; libre-2p 38).
    ronda_limit: int
    #: R6/R14: "wins" (pagat-4p, heads-up) or "ronda" (libre-2p: four of a kind scores as a ronda).
    four_of_a_kind: str
    #: R14 heads-up: both players holding four of a kind in one packet is a draw.
    double_four_draws: bool
    #: R8/R14: missed sequence cards may be taken by the other team (libre-2p: they stay).
    forfeiture: bool
    #: R11/R14: the count scores for a team at 38 (libre-2p: it does not).
    count_at_38: bool
    #: R5/R14: a referee may rule a misdeal (pagat-4p only).
    referee: bool
    #: R4/R14: packets in a 40-card hand, 5 cards to every seat per packet (2, or 4 with 2 seats).
    packets_per_hand: int
    #: R10: the +10 ronda-caída award exists (pagat-4p unless special_claims = off; never R14).
    awards_r10: bool


def check_options(profile: str, options: Mapping[str, object]) -> dict[str, object]:
    """Return ``options`` checked against R13/R14, or raise `InvalidOptions` naming the problem."""
    if profile not in PROFILES:
        raise InvalidOptions("R14", f"unknown profile {profile!r} (known: {', '.join(PROFILES)})")
    if not isinstance(options, Mapping):
        raise InvalidOptions("R13", "options must be an object of option names to values")
    fixed = _FIXED[profile]
    for name, value in options.items():
        allowed = OPTION_VALUES.get(name)
        if allowed is None:
            raise InvalidOptions("R13", f"unknown option {name!r}")
        # bool is an int in Python: compare types too, so `true` is not ronda_points 1.
        if not any(type(value) is type(ok) and value == ok for ok in allowed):
            shown = ", ".join(repr(ok) for ok in allowed)
            raise InvalidOptions("R13", f"option {name!r} cannot be {value!r} (allowed: {shown})")
        if name in fixed and value != fixed[name]:
            raise InvalidOptions(
                "R14", f"{profile} fixes {name} = {fixed[name]!r}; it cannot be {value!r}"
            )
    return dict(options)


def resolve_rules(
    profile: str = DEFAULT_PROFILE, options: Mapping[str, object] | None = None
) -> Rules:
    """Resolve a profile and the options given into `Rules` (defaults for the rest)."""
    given = check_options(profile, options or {})
    values = {name: allowed[0] for name, allowed in OPTION_VALUES.items()}
    values.update(_FIXED[profile])
    values.update(given)
    libre = profile == "libre-2p"
    return Rules(
        profile=profile,
        seats=4 if profile == "pagat-4p" else 2,
        direction=str(values["direction"]),
        announcements=str(values["announcements"]),
        ronda_points=int(str(values["ronda_points"])),
        sequence=str(values["sequence"]),
        special_claims=str(values["special_claims"]),
        misdeal_penalty=str(values["misdeal_penalty"]),
        capture_mandatory=bool(values["capture_mandatory"]),
        target=int(str(values["target"])),
        ronda_limit=38 if libre else 30,
        four_of_a_kind="ronda" if libre else "wins",
        double_four_draws=profile == "heads-up",
        forfeiture=not libre,
        count_at_38=not libre,
        referee=profile == "pagat-4p",
        packets_per_hand=2 if profile == "pagat-4p" else 4,
        awards_r10=profile == "pagat-4p" and values["special_claims"] != "off",
    )
