"""The Boss for bot authors.

- ``theboss.engine``: the server's exact rules offline (the Rust engine through PyO3), and
  the turn notation (``place boston 2e 1o; play detroit 3``);
- ``theboss.client``: the live service and its ladder (gRPC), ``theboss.aio`` the same on
  asyncio;
- ``theboss.record``: game records (exports) read and replayed;
- ``theboss.board``: a view printed as a table;
- ``theboss.credentials``: API tokens kept where the Rust clients keep theirs;
- ``theboss.env``: a PettingZoo AEC environment (``pip install "theboss[pettingzoo]"``);
- ``theboss.openspiel``: an OpenSpiel game (``pip install "theboss[openspiel]"``);
- ``theboss.v1``: the protobuf messages both speak, generated from ``proto/``;
- ``theboss.errors``: every exception the kit raises.
"""

__version__ = "0.1.0"
