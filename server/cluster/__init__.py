"""Several server processes sharing the tables in Redis (invariant 4), behind a narrow door.

The rest of the server sees only ``Cluster`` (ownership, forwarding, relaying, takeover) and
``RemoteRoom`` (a table owned by another process, taking the same commands as ``Room.run``);
the cluster sees the lobby and the connections only through two protocols it defines
(``Tables``, ``Local`` in ``server.cluster.remote``).
"""

from server.cluster.remote import RemoteRoom
from server.cluster.tables import Cluster

__all__ = ["Cluster", "RemoteRoom"]
