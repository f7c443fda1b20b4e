"""The wire contract between the table server and its clients.

Messages are frozen pydantic models (``client_messages``, ``server_messages``) carried as msgpack
maps (``codec``) over WebSocket binary frames. The first message on a connection is ``hello``
carrying :data:`PROTOCOL_VERSION`; the server answers ``welcome``. PROTOCOL.md is generated from
these models by ``python -m protocol.doc``.
"""

from protocol.base import PROTOCOL_VERSION, SUPPORTED_VERSIONS
from protocol.client_messages import ClientMessage, GameAction
from protocol.codec import CLIENT_LIMITS, Limits, decode_client, decode_server, encode
from protocol.errors import ErrorCode, FrameError, FrameTooLarge, MessageError, ProtocolError
from protocol.server_messages import ServerMessage

__all__ = [
    "CLIENT_LIMITS",
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "ClientMessage",
    "ErrorCode",
    "FrameError",
    "FrameTooLarge",
    "GameAction",
    "Limits",
    "MessageError",
    "ProtocolError",
    "ServerMessage",
    "decode_client",
    "decode_server",
    "encode",
]
