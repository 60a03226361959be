"""asyncio networking: TLS transport, mDNS discovery, host and client sessions."""
