"""Errors in the player's language: a refusal by its stable wire code, a failure by its kind.

The client library words its errors in English for logs and scripts; the terminal shows the
person one sentence in the chosen language instead, said once (the library's text repeats the
refusal's lead and the server's own message, which is English and a detail).
"""

from __future__ import annotations

from clients.links import LinkError
from clients.session import RequestRefused, SessionError
from clients.table import REFUSALS, TableRefused, Unreachable
from clients.terminal.i18n import MESSAGES, Translator
from protocol.errors import ErrorCode

#: what the server's goodbye reasons and the reconnecting stream's notes say, by their words
_NOTES = {
    "taken back": "bye_taken_back",
    "removed you": "bye_kicked",
    "another server": "bye_moved",
    "closed by the client": "bye_client",
    "dropped": "bye_dropped",
}


def refusal_text(code: ErrorCode, tr: Translator) -> str:
    key = f"err_{code.value}"
    return tr(key) if key in MESSAGES else tr("err_other", code=code.value)


def error_text(exc: BaseException, tr: Translator, link: str = "", server: str = "") -> str:
    """One sentence for ``exc``; ``link`` and ``server`` are what the person typed."""
    if isinstance(exc, TableRefused | RequestRefused):
        return refusal_text(exc.code, tr)
    if isinstance(exc, LinkError):
        return tr("err_link", text=repr(link) if link else "?")
    if isinstance(exc, Unreachable):
        return tr("err_unreachable", server=server or link)
    if isinstance(exc, SessionError):
        return note_text(str(exc), tr)
    return tr("err_connection")


def note_text(detail: str, tr: Translator) -> str:
    """A connection note (a goodbye's reason, a stream status) in the person's language."""
    for words, key in _NOTES.items():
        if words in detail:
            return tr(key)
    for code in ErrorCode:  # a refusal that reached the stream as text ("not_found: …")
        lead = REFUSALS.get(code)
        if detail.startswith(f"{code.value}:") or (lead and detail.startswith(lead)):
            return refusal_text(code, tr)
    if "reach" in detail or "answer" in detail:
        server = next((word for word in detail.split() if "://" in word), "?")
        return tr("err_unreachable", server=server.strip("()"))
    return tr("err_connection")
