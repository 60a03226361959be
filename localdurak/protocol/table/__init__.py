"""One game of the series as each party keeps it, sans-I/O: the seat and host replicas
(replica.py) that join the wire messages, the card-privacy protocol and the rules engine."""
