"""Socket plumbing every feature's consumers share: hints on the channel layer, the base
viewer consumer, shared renders, the health of the socket."""
