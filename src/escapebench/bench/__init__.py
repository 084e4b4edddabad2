"""escapebench.bench"""
