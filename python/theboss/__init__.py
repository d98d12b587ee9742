"""The Boss for bot authors.

- ``theboss.engine``: the server's exact rules offline (the Rust engine through PyO3);
- ``theboss.client``: the live service and its ladder (gRPC);
- ``theboss.env``: a PettingZoo AEC environment (``pip install "theboss[pettingzoo]"``);
- ``theboss.v1``: the protobuf messages both speak, generated from ``proto/``;
- ``theboss.errors``: every exception the kit raises.
"""

__version__ = "0.1.0"
