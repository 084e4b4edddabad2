"""escapebench.engine"""
