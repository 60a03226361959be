"""One game of the series as each party keeps it, sans-I/O, joining the wire messages, the
card-privacy protocol and the rules engine: the seat's replica (seat.py), the host's authority
(host.py), what they share (common.py), the table policy the host and the offline table
share (policy.py), and the move clock as every screen has it, restarted by each game action
(clock.py)."""
