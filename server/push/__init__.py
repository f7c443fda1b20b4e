"""Web Push: the notices of ``server.notices`` sent to people's browsers with the page closed.

``book`` keeps each person's push subscriptions, their notice settings and which notices were
sent (once per event, across processes); ``vapid`` the server's key pair; ``sender`` the
``Notices`` that pushes (pywebpush, RFC 8291 aes128gcm, VAPID RFC 8292); ``routes`` the
requests of ``protocol.away``.
"""
