"""One game of the series as each party keeps it, sans-I/O: the seat's replica (seat.py), the
host's authority (host.py), and what they share (common.py), joining the wire messages, the
card-privacy protocol and the rules engine."""
