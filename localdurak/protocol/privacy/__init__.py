"""The card-privacy protocol (docs/privacy.md), sans-I/O.

group (the prime-order group), cardpoints (a point per card), proofs (Schnorr and DLEQ),
schedule (who strips which position when), messages (the wire form), events (what a seat's
application learns), transcript (the public state and its checks), roles (`Player`, `Host`),
record (a game's transcript as a record), audit (replaying a record), binding (the record
against its signed setup and identity-signed steps), verdict (what the audit reports).
"""
