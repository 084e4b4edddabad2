"""escapebench.games"""
