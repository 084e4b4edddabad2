"""escapebench.agents"""
