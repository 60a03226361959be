"""Sans-I/O protocols: codec, card privacy (mental poker), records and the audit."""
